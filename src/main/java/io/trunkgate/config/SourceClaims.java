package io.trunkgate.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The source networks of all peers. One network may belong to one peer only; overlapping networks of
 * different sizes are allowed (the most specific one identifies the peer).
 */
final class SourceClaims {

    private final List<ConfigError> errors;
    private final Map<Cidr, Location> claimed = new HashMap<>();

    SourceClaims(List<ConfigError> errors) {
        this.errors = errors;
    }

    void claim(Cidr source, Location at) {
        Location first = claimed.putIfAbsent(source, at);
        if (first == null) {
            return;
        }
        errors.add(at.error(first.file().equals(at.file())
                ? source + " is listed twice (also at line " + first.line() + ")"
                : source + " is already claimed by the peer in " + IdIndex.place(first)));
    }
}
