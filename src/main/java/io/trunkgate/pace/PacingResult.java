package io.trunkgate.pace;

import java.time.Duration;

/**
 * How holding one call for its carrier ended.
 *
 * @param delay for {@link Status#RELEASED} how long the call was held; for {@link Status#OVER_MAX_WAIT} how
 *             long it would have had to wait
 */
public record PacingResult(Status status, Duration delay) {

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
