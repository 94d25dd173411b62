package io.trunkgate.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/** One file of the peers directory. */
final class PeerFileReader {

    private PeerFileReader() {
    }

    static Optional<PeerConfig> read(ConfigSection file, IdIndex peers, IdIndex groups, SourceClaims claims) {
        Field idField = file.required("id");
        Optional<String> id = idField.id();
        id.ifPresent(value -> peers.define(value, idField.at()));

        Field sourcesField = file.required("match.sources");
        List<Field> elements = sourcesField.elements().orElse(List.of());
        if (sourcesField.isPresent() && elements.isEmpty()) {
            sourcesField.error("must list at least one source address or network");
        }
        List<Cidr> sources = new ArrayList<>();
        for (Field element : elements) {
            element.parsed(Cidr::parse).ifPresent(source -> {
                claims.claim(source, element.at());
                sources.add(source);
            });
        }

        Field groupField = file.optional("group");
        Optional<String> group = groupField.id();
        group.ifPresent(value -> groups.refer(value, groupField.at()));

        LimitMode mode = LimitsReader.mode(file);
        List<Limit> limits = LimitsReader.read(file, mode);
        OptionalInt maxConcurrent = MaxConcurrent.read(file);
        return id.map(value -> new PeerConfig(value, sources, group, limits, maxConcurrent, mode));
    }
}
