package io.trunkgate.sip;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * Where one proxied INVITE is, and every move it may make (an {@link InviteCall} changes phase only through
 * {@link #to}). Whether the caller cancelled, and whether a CANCEL went to the carrier, are kept beside it:
 * a cancelled call still goes through these phases until its carrier leg is closed.
 */
enum CallPhase {
    /** Waiting for the admission verdict. */
    ADMITTING,
    /** Admitted: held for a carrier slot, or choosing the next carrier after a failover. */
    ROUTING,
    /** Sent to a carrier, which has not responded yet (answer-timeout running). */
    TRYING,
    /** The carrier sent 100 Trying: a CANCEL may now be sent (RFC 3261 §9.1), answer-timeout still runs. */
    PROCEEDING,
    /** The carrier sent 180/183: the callee is being reached (ring-timeout running), no failover on silence. */
    RINGING,
    /** The final response went upstream. A carrier leg still open is only closed from here on. */
    ENDED;

    private static final Map<CallPhase, Set<CallPhase>> NEXT = Map.of(
            ADMITTING, EnumSet.of(ROUTING, ENDED),
            ROUTING, EnumSet.of(TRYING, ROUTING, ENDED),
            TRYING, EnumSet.of(PROCEEDING, RINGING, ROUTING, ENDED),
            PROCEEDING, EnumSet.of(RINGING, ROUTING, ENDED),
            RINGING, EnumSet.of(ROUTING, ENDED),
            ENDED, EnumSet.noneOf(CallPhase.class));

    /** The phase after a move to {@code next}; a move not in the table is a bug in the caller. */
    CallPhase to(CallPhase next) {
        if (!NEXT.get(this).contains(next)) {
            throw new IllegalStateException("call phase " + this + " cannot go to " + next);
        }
        return next;
    }

    /** Sent to a carrier and not yet answered upstream. */
    boolean atCarrier() {
        return this == TRYING || this == PROCEEDING || this == RINGING;
    }

    /** Not yet sent to any carrier (being admitted or held), nor answered upstream. */
    boolean beforeCarrier() {
        return this == ADMITTING || this == ROUTING;
    }
}
