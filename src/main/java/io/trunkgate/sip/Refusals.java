package io.trunkgate.sip;

import io.trunkgate.config.AdmissionSettings;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.overload.ShedReason;
import io.trunkgate.route.RoutingStep;
import java.util.Optional;
import javax.sip.message.Response;

/** What the gateway answers when it ends an INVITE itself: the status, the Reason text and the Retry-After. */
final class Refusals {

    /** One answer of the gateway's own; {@code retryAfterSeconds} 0 sends no Retry-After. */
    record Refusal(int status, String reason, long retryAfterSeconds) {
    }

    static final Refusal CANCELLED = new Refusal(Response.REQUEST_TERMINATED, "cancelled", 0);
    /** Drain: the caller may try another instance at once. */
    static final Refusal DRAINING = new Refusal(Response.SERVICE_UNAVAILABLE, "gateway shutting down", 1);
    static final Refusal SHUTDOWN = new Refusal(Response.SERVICE_UNAVAILABLE, "gateway shutting down", 0);
    /** As an INVITE shed for overload is answered: its decision came too late because this gateway is behind. */
    static final Refusal OVERLOADED = new Refusal(Response.SERVICE_UNAVAILABLE, ShedReason.OVERLOAD.text(), 1);
    static final Refusal INTERNAL_ERROR = new Refusal(Response.SERVER_INTERNAL_ERROR, "internal error", 0);
    /**
     * RFC 3261 §8.2.2.2: the INVITE is a copy, on another branch, of a call already placed (same Call-ID, From tag
     * and CSeq), here or on another gateway of the fleet: it never reaches a carrier a second time.
     */
    static final Refusal MERGED = new Refusal(Response.LOOP_DETECTED, "merged request: this call was already placed", 0);
    /** An INVITE outside a dialog with the Call-ID and From tag of a call in progress: it may not take its place. */
    static final Refusal CALL_IN_PROGRESS = new Refusal(Response.LOOP_DETECTED,
            "merged request: a call with this Call-ID and From tag is in progress", 0);

    private Refusals() {
    }

    /**
     * A call admission refused: blocked, too heavy, over a limit or a max-concurrent cap, or no decision under the
     * reject policy.
     */
    static Refusal admission(AdmissionVerdict verdict, AdmissionSettings settings, String peerId) {
        if (verdict.gatewayBehind()) {
            return OVERLOADED;
        }
        if (verdict.decision().isEmpty()) {
            return new Refusal(settings.rejectCode(), "admission unavailable: redis unreachable", 0);
        }
        AdmissionDecision decision = verdict.decision().get();
        String limit = decision.refusedLimit().map(Object::toString).orElse("?");
        return switch (decision.outcome()) {
            case BLOCKED -> new Refusal(settings.blockedCode(), "peer " + peerId + " is blocked",
                    AdmissionVerdict.retryAfterSeconds(decision.retryAfter()));
            case TOO_HEAVY -> new Refusal(settings.rejectCode(), "call weight exceeds limit " + limit, 0);
            // no Retry-After: nobody knows when a call in progress ends
            case CONCURRENT -> new Refusal(settings.concurrentCode(), "max-concurrent of "
                    + decision.refusedBy().map(Object::toString).orElse(peerId) + " reached", 0);
            default -> new Refusal(settings.rejectCode(), "CPS limit " + limit + " of "
                    + decision.refusedBy().map(Object::toString).orElse(peerId),
                    AdmissionVerdict.retryAfterSeconds(decision.retryAfter()));
        };
    }

    /**
     * No carrier is left for the call. Empty when the last carrier's failure response should go upstream
     * instead (it answered, and no carrier was refused for pacing).
     *
     * @param failureResponse whether a carrier answered with a failure response that caused a failover
     * @param anyTried        whether any carrier was tried
     * @param anyDown         whether a carrier of the chain was passed over because it was down
     * @param timedOut        whether an attempt ended for the carrier's silence
     */
    static Optional<Refusal> exhausted(RoutingStep.Exhausted exhausted, boolean failureResponse, boolean anyTried,
                                       boolean anyDown, boolean timedOut, String number) {
        if (failureResponse && exhausted.retryAfter().isEmpty()) {
            return Optional.empty();
        }
        String unresolved = exhausted.unresolved().isEmpty() ? ""
                : " (unresolved: " + String.join(", ", exhausted.unresolved()) + ")";
        if (!anyTried && anyDown) {
            return Optional.of(new Refusal(Response.SERVICE_UNAVAILABLE, "every carrier of the route is down"
                    + unresolved, 0));
        }
        if (!anyTried) {
            return Optional.of(new Refusal(Response.NOT_FOUND, "no route for " + number, 0));
        }
        if (exhausted.retryAfter().isEmpty() && !timedOut && !exhausted.unresolved().isEmpty()) {
            return Optional.of(new Refusal(Response.SERVICE_UNAVAILABLE, "no carrier reachable" + unresolved, 0));
        }
        if (exhausted.retryAfter().isPresent() || !timedOut) {
            return Optional.of(new Refusal(Response.SERVICE_UNAVAILABLE, "no carrier slot within max-wait",
                    exhausted.retryAfter().map(AdmissionVerdict::retryAfterSeconds).orElse(0L)));
        }
        return Optional.of(new Refusal(Response.SERVICE_UNAVAILABLE,
                "no response from any carrier within answer-timeout", 0));
    }
}
