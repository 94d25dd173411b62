package io.trunkgate.limit;

import io.trunkgate.config.Limit;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Whose limits a call is checked against: a peer, or the group of peers it belongs to.
 *
 * @param maxConcurrent the most calls of the scope in progress at once, fleet-wide (each holds a lease)
 */
public record Scope(Kind kind, String id, List<Limit> limits, OptionalInt maxConcurrent) {

    public enum Kind { PEER, GROUP }

    public Scope {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        limits = List.copyOf(limits);
        maxConcurrent = maxConcurrent == null ? OptionalInt.empty() : maxConcurrent;
        if (maxConcurrent.isPresent() && maxConcurrent.getAsInt() < 1) {
            throw new IllegalArgumentException("max-concurrent must be at least 1: " + maxConcurrent);
        }
    }

    public Scope(Kind kind, String id, List<Limit> limits) {
        this(kind, id, limits, OptionalInt.empty());
    }

    public static Scope peer(String id, List<Limit> limits) {
        return new Scope(Kind.PEER, id, limits);
    }

    public static Scope group(String id, List<Limit> limits) {
        return new Scope(Kind.GROUP, id, limits);
    }

    /** This scope with a cap on calls in progress. */
    public Scope withMaxConcurrent(OptionalInt max) {
        return new Scope(kind, id, limits, max);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + id;
    }
}
