package io.trunkgate.health;

import java.time.Instant;
import java.util.Optional;

/**
 * A carrier's health as this gateway sees it.
 *
 * @param up     whether calls may go to it
 * @param origin who decided it: the checks (probes and calls), the carrier itself (503 with Retry-After) or an
 *               operator
 * @param reason why, for people: "timeout", "503", "probe", "operator"...
 * @param since  when the carrier entered this state
 * @param until  when a hold of the carrier's or an operator's ends, or a down its failed calls set (origin
 *               {@code CHECKS}: not a hold, probes may end it sooner); empty for what the probes found
 * @param by     the gateway instance that decided it
 */
public record CarrierState(boolean up, Origin origin, String reason, Instant since, Optional<Instant> until,
                           String by) {

    /** The reason of a carrier whose host name does not resolve (and no earlier answer is used): down. */
    public static final String UNRESOLVED = "unresolved";

    /** Who set a state; a stronger origin's hold is not overridden by a weaker one while it lasts. */
    public enum Origin {
        CHECKS, CARRIER, OPERATOR
    }

    /** Up, found so by the checks (or never checked). */
    public static CarrierState up(Instant since, String reason, String by) {
        return new CarrierState(true, Origin.CHECKS, reason, since, Optional.empty(), by);
    }

    /** Whether this is a hold (the carrier's or an operator's) still in force at {@code now}. */
    public boolean heldAt(Instant now) {
        return origin != Origin.CHECKS && until.map(now::isBefore).orElse(false);
    }
}
