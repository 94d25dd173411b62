package io.trunkgate.pace;

import java.time.Duration;

/**
 * How holding one call for its carrier ended.
 *
 * @param delay for {@link Status#RELEASED} how long the call was held; for {@link Status#OVER_MAX_WAIT} how
 *             long it would have had to wait
 */
public record PacingResult(Status status, Duration delay, Shadow shadow) {

    public PacingResult {
        shadow = shadow == null ? Shadow.NONE : shadow;
    }

    public PacingResult(Status status, Duration delay) {
        this(status, delay, Shadow.NONE);
    }

    /**
     * What the carrier's shadow pacing or shadow max-concurrent would have done to a call sent at once.
     *
     * @param wouldWait   under shadow pacing, how long the call would have waited for its slot (zero otherwise)
     * @param overMaxWait under shadow pacing, that wait was over the carrier's max-wait: enforced, the call would
     *                    have gone to the next carrier (nothing was reserved, as enforced pacing reserves nothing)
     * @param overCap     under a shadow max-concurrent, the carrier was full: enforced, the call would have gone to
     *                    the next carrier (it holds no lease there)
     */
    public record Shadow(Duration wouldWait, boolean overMaxWait, boolean overCap) {
        public static final Shadow NONE = new Shadow(Duration.ZERO, false, false);

        public Shadow withOverCap() {
            return new Shadow(wouldWait, overMaxWait, true);
        }
    }

    public enum Status {
        /** The slot came: send the call now. */
        RELEASED,
        /** The carrier's next slot is further away than its max-wait; nothing was reserved. */
        OVER_MAX_WAIT,
        /** This gateway already holds max-held calls for the carrier; treated like over max-wait. */
        HOLD_FULL,
        /** The carrier has max-concurrent calls in progress fleet-wide; treated like over max-wait. */
        AT_CAPACITY,
        /** The caller gave up (CANCEL) before the slot; the call must never be sent. */
        CANCELLED
    }

    public boolean released() {
        return status == Status.RELEASED;
    }
}
