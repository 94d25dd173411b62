package io.trunkgate.limit;

import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * Whose limits a call is checked against: a peer, or the group of peers it belongs to.
 *
 * @param maxConcurrent the most calls of the scope in progress at once, fleet-wide (each holds a lease)
 * @param capMode       whether the max-concurrent cap refuses calls or only counts those it would refuse
 */
public record Scope(Kind kind, String id, List<Limit> limits, OptionalInt maxConcurrent, LimitMode capMode) {

    public enum Kind { PEER, GROUP }

    public Scope {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        limits = List.copyOf(limits);
        maxConcurrent = maxConcurrent == null ? OptionalInt.empty() : maxConcurrent;
        capMode = capMode == null ? LimitMode.ENFORCE : capMode;
        if (maxConcurrent.isPresent() && maxConcurrent.getAsInt() < 1) {
            throw new IllegalArgumentException("max-concurrent must be at least 1: " + maxConcurrent);
        }
    }

    public Scope(Kind kind, String id, List<Limit> limits, OptionalInt maxConcurrent) {
        this(kind, id, limits, maxConcurrent, LimitMode.ENFORCE);
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

    /** This scope with an enforced cap on calls in progress. */
    public Scope withMaxConcurrent(OptionalInt max) {
        return withMaxConcurrent(max, LimitMode.ENFORCE);
    }

    /** This scope with a cap on calls in progress, enforced or in shadow. */
    public Scope withMaxConcurrent(OptionalInt max, LimitMode mode) {
        return new Scope(kind, id, limits, max, mode);
    }

    /** Whether the scope's max-concurrent cap only counts the calls it would refuse. */
    public boolean shadowCap() {
        return capMode == LimitMode.SHADOW;
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + id;
    }
}
