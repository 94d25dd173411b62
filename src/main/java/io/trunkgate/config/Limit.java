package io.trunkgate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * One rolling-window limit: never more than {@code max} admitted units in any interval of length
 * {@code window}. Without a precision the window is exact (a sliding log of admitted calls); with a
 * precision it is kept as sub-buckets of that length, which bounds memory and errs towards admitting
 * fewer calls, never more.
 */
public record Limit(Duration window, long max, Optional<Duration> precision) {

    public Limit {
        if (window == null || window.toMillis() <= 0) {
            throw new IllegalArgumentException("window must be at least 1ms: " + window);
        }
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1: " + max);
        }
        precision = precision == null ? Optional.empty() : precision;
        precision.ifPresent(p -> {
            if (p.toMillis() <= 0 || p.compareTo(window) > 0) {
                throw new IllegalArgumentException("precision must be between 1ms and the window: " + p);
            }
        });
    }

    public static Limit exact(Duration window, long max) {
        return new Limit(window, max, Optional.empty());
    }

    public static Limit bucketed(Duration window, long max, Duration precision) {
        return new Limit(window, max, Optional.of(precision));
    }

    public boolean isExact() {
        return precision.isEmpty();
    }

    @Override
    public String toString() {
        return max + "/" + window.toMillis() + "ms" + precision.map(p -> "@" + p.toMillis() + "ms").orElse("");
    }
}
