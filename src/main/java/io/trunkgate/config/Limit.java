package io.trunkgate.config;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One rolling-window limit: never more than {@code max} admitted units in any interval of length
 * {@code window}. Without a precision the window is exact (a sliding log of admitted calls); with a
 * precision it is kept as sub-buckets of that length, which bounds memory and errs towards admitting
 * fewer calls, never more. In {@link LimitMode#SHADOW} it refuses nothing and only counts the calls it would
 * refuse. {@link #toString} leaves the mode out: it names the limit in logs, records and metric labels, the same
 * before and after the limit is switched between modes.
 */
public record Limit(Duration window, long max, Optional<Duration> precision, LimitMode mode) {

    /**
     * The most buckets a precision window may have (window / precision): lua/admit.lua reads at most 66 block
     * sums of 32 buckets per call, so every decision does a bounded amount of work whatever the window holds.
     */
    public static final long MAX_BUCKETS = 2048;

    /**
     * The most precision windows one decision weighs: lua/admit.lua counts a peer's and its group's limits together,
     * and in its worst state a precision window reads up to 7 HMGETs of 67 fields, so four keep a decision's Redis
     * work within a few times one window's (bench/redis-cost.sh). Exact windows cost a few O(log n) reads each.
     */
    public static final int MAX_PRECISION_WINDOWS_PER_DECISION = 4;

    /** The most limits (enforced and shadow) one decision weighs: a peer's and its group's together. */
    public static final int MAX_LIMITS_PER_DECISION = 16;

    public Limit {
        if (window == null || window.toMillis() <= 0 || !wholeMillis(window)) {
            throw new IllegalArgumentException("window must be a whole number of milliseconds, at least 1ms: " + window);
        }
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1: " + max);
        }
        precision = precision == null ? Optional.empty() : precision;
        mode = mode == null ? LimitMode.ENFORCE : mode;
        precision.ifPresent(p -> {
            if (p.toMillis() <= 0 || p.compareTo(window) > 0 || !wholeMillis(p)) {
                throw new IllegalArgumentException("precision must be whole milliseconds between 1ms and the window: " + p);
            }
            if (buckets(window, p) > MAX_BUCKETS) {
                throw new IllegalArgumentException("precision " + p.toMillis() + "ms gives " + buckets(window, p)
                        + " buckets per window of " + window.toMillis() + "ms, more than " + MAX_BUCKETS
                        + "; the smallest precision allowed is " + smallestPrecision(window).toMillis() + "ms");
            }
        });
    }

    /**
     * Why {@code limits}, weighed together in one decision (a peer's and its group's), would cost Redis more than
     * the bound; empty when they do not.
     */
    public static Optional<String> overDecisionBound(List<Limit> limits) {
        long precise = limits.stream().filter(limit -> limit.precision().isPresent()).count();
        if (precise > MAX_PRECISION_WINDOWS_PER_DECISION) {
            return Optional.of(precise + " precision windows weighed in one decision, more than "
                    + MAX_PRECISION_WINDOWS_PER_DECISION + " (each may read up to 7 HMGETs of 67 fields of Redis in its"
                    + " worst state, and one admission weighs the peer's and its group's limits together)");
        }
        if (limits.size() > MAX_LIMITS_PER_DECISION) {
            return Optional.of(limits.size() + " limits weighed in one decision, more than " + MAX_LIMITS_PER_DECISION
                    + " (one admission weighs the peer's and its group's limits together, shadow ones too)");
        }
        return Optional.empty();
    }

    /** An enforced limit. */
    public Limit(Duration window, long max, Optional<Duration> precision) {
        this(window, max, precision, LimitMode.ENFORCE);
    }

    /** Whether {@code d} is a whole number of milliseconds (the scripts take milliseconds). */
    public static boolean wholeMillis(Duration d) {
        return d.getNano() % 1_000_000 == 0;
    }

    /** Buckets of a window at a precision: window / precision, rounded up. */
    public static long buckets(Duration window, Duration precision) {
        return (window.toMillis() + precision.toMillis() - 1) / precision.toMillis();
    }

    /** The finest precision a window may have: at most {@link #MAX_BUCKETS} buckets, whole milliseconds. */
    public static Duration smallestPrecision(Duration window) {
        return Duration.ofMillis(Math.max(1, (window.toMillis() + MAX_BUCKETS - 1) / MAX_BUCKETS));
    }

    public static Limit exact(Duration window, long max) {
        return new Limit(window, max, Optional.empty());
    }

    public static Limit bucketed(Duration window, long max, Duration precision) {
        return new Limit(window, max, Optional.of(precision));
    }

    /** This limit in {@code mode}. */
    public Limit in(LimitMode mode) {
        return new Limit(window, max, precision, mode);
    }

    public boolean shadow() {
        return mode == LimitMode.SHADOW;
    }

    /** Whether {@code other} is the same window (length and precision), whatever its max and mode. */
    public boolean sameWindow(Limit other) {
        return window.equals(other.window) && precision.equals(other.precision);
    }

    public boolean isExact() {
        return precision.isEmpty();
    }

    @Override
    public String toString() {
        return max + "/" + window.toMillis() + "ms" + precision.map(p -> "@" + p.toMillis() + "ms").orElse("");
    }
}
