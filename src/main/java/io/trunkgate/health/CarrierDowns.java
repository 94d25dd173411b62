package io.trunkgate.health;

import java.util.Locale;

/** Told each time this gateway sets a carrier, or one of its addresses, down (not when it learns of another's). */
@FunctionalInterface
public interface CarrierDowns {

    /** Nobody is told. */
    CarrierDowns NONE = (carrierId, by) -> {
    };

    /** What set it down. */
    enum By {
        /** Probes and calls counted against {@code probe.down-after}. */
        CHECKS,
        /** Calls failed in a row ({@code call-failures}). */
        CALLS,
        /** The carrier's 503 with Retry-After to calls of several peers. */
        RETRY_AFTER,
        /** An operator. */
        OPERATOR;

        /** Lowercase snake case, as the metrics spell it. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    void down(String carrierId, By by);
}
