package io.trunkgate.limit;

import io.trunkgate.config.Limit;
import io.trunkgate.pace.Reservation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The answer to one admission request.
 *
 * @param outcome          what happened
 * @param retryAfter       for a refusal, how long until this call would be admitted (zero when admitted;
 *                         for {@link Outcome#TOO_HEAVY} it would never be)
 * @param refusedBy        the scope whose limit or block refused the call
 * @param refusedLimit     the limit that refused it (empty for a block)
 * @param remaining        the smallest capacity left among all limits after this decision; -1 when the
 *                         call met no limit at all
 * @param serverTimeMicros the Redis server time the decision was made at, in microseconds since the epoch
 * @param firstSlot        for an admitted call whose request asked for it, the carrier slot reserved with the
 *                         admission (reserved or not, as lua/pace.lua decided)
 * @param wouldRefuse      the shadow limits and caps that would have refused the call, had they been enforced
 *                         (for an admitted call, a call over an enforced limit or cap, and a copy of an admitted
 *                         call that a shadow limit did not count; empty for the other outcomes)
 */
public record AdmissionDecision(Outcome outcome, Duration retryAfter, Optional<Scope> refusedBy,
                                Optional<Limit> refusedLimit, long remaining, long serverTimeMicros,
                                Optional<Reservation> firstSlot, List<WouldRefuse> wouldRefuse) {

    public AdmissionDecision {
        wouldRefuse = List.copyOf(wouldRefuse);
    }

    public AdmissionDecision(Outcome outcome, Duration retryAfter, Optional<Scope> refusedBy,
                             Optional<Limit> refusedLimit, long remaining, long serverTimeMicros,
                             Optional<Reservation> firstSlot) {
        this(outcome, retryAfter, refusedBy, refusedLimit, remaining, serverTimeMicros, firstSlot, List.of());
    }

    public AdmissionDecision(Outcome outcome, Duration retryAfter, Optional<Scope> refusedBy,
                             Optional<Limit> refusedLimit, long remaining, long serverTimeMicros) {
        this(outcome, retryAfter, refusedBy, refusedLimit, remaining, serverTimeMicros, Optional.empty());
    }

    public enum Outcome {
        /** Admitted and counted in every limit. */
        ADMITTED,
        /**
         * The same call (Call-ID, From tag and CSeq) was admitted before, here or by another instance: a merged
         * request, not admitted again; nothing was counted and no lease taken.
         */
        DUPLICATE,
        /** Over a limit; nothing was counted. */
        LIMITED,
        /** The scope is blocked by an operator. */
        BLOCKED,
        /** The call's weight exceeds a limit's max, so it can never be admitted. */
        TOO_HEAVY,
        /** The scope already has max-concurrent calls in progress; nothing was counted. */
        CONCURRENT
    }

    public boolean admitted() {
        return outcome == Outcome.ADMITTED;
    }
}
