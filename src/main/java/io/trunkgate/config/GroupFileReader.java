package io.trunkgate.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** One file of the groups directory. */
final class GroupFileReader {

    private GroupFileReader() {
    }

    static Optional<GroupConfig> read(ConfigSection file, IdIndex groups) {
        Field idField = file.required("id");
        Optional<String> id = idField.id();
        id.ifPresent(value -> groups.define(value, idField.at()));
        LimitMode mode = LimitsReader.mode(file);
        List<Limit> limits = LimitsReader.read(file, mode);
        LimitsReader.checkDecisionBound(file, limits, List.of(), "");
        OptionalInt maxConcurrent = MaxConcurrent.read(file);
        return id.map(value -> new GroupConfig(value, limits, maxConcurrent, mode));
    }
}
