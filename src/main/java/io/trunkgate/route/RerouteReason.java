package io.trunkgate.route;

import java.util.Locale;

/**
 * Why a call left a carrier for the next candidate. Logs, call records and metrics spell it as {@link #label()};
 * the HTTP reroute hook's request carries the constant's name.
 */
public enum RerouteReason {
    /** The carrier's next slot was further away than its max-wait. */
    OVER_MAX_WAIT,
    /** This gateway already held max-held calls for the carrier. */
    HOLD_FULL,
    /** The carrier answered with a final response listed in its failover-on. */
    FAILURE_RESPONSE,
    /** The carrier gave no final answer within its answer-timeout. */
    TIMEOUT,
    /** The carrier had max-concurrent calls in progress. */
    AT_CAPACITY,
    /** The carrier's slot could not be reserved because Redis was unreachable. */
    PACER_UNAVAILABLE,
    /** The carrier's host name resolved to no address (DNS failed, and no earlier answer was at hand). */
    UNRESOLVED;

    /** A carrier of the chain passed over without an attempt because it was down: the label of such a skip. */
    public static final String CARRIER_DOWN = "carrier_down";

    /** The reason in lowercase snake case ({@code over_max_wait}), as logs, call records and metrics show it. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
