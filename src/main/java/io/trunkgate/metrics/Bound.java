package io.trunkgate.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Meters (or anything built from a label value) bound once per label value and kept: an event then costs a map
 * lookup, where Micrometer's builders cost a builder, a meter id, its tags and a lookup in the registry per event.
 * Label values are bounded by the configuration (peers, carriers) or by the code (reasons), so this never shrinks,
 * as the registry does not.
 */
final class Bound<M> {

    private final ConcurrentHashMap<String, M> byLabel = new ConcurrentHashMap<>();
    private final Function<String, M> bind;

    Bound(Function<String, M> bind) {
        this.bind = bind;
    }

    /** What {@code label} is bound to, bound now if it was not. */
    M get(String label) {
        M bound = byLabel.get(label);
        return bound != null ? bound : byLabel.computeIfAbsent(label, bind);
    }

    /** What {@code label} is bound to, or null when it was never asked for. */
    M find(String label) {
        return byLabel.get(label);
    }
}
