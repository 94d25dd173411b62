package io.trunkgate.sip;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.limit.WouldRefuse;
import io.trunkgate.overload.ShedReason;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Stream;

/** How an admission verdict reads in the call log line, the call record and the rejection metric. */
final class AdmissionLabels {

    private static final String REDIS_UNAVAILABLE = "redis_unavailable";

    private AdmissionLabels() {
    }

    /**
     * For the call log: admitted, rejected(merged), rejected(blocked), rejected(peer:p 10/1s),
     * rejected(redis_unavailable), shed(overload)...
     */
    static String logText(AdmissionVerdict verdict) {
        if (verdict.gatewayBehind()) {
            return "shed(" + ShedReason.OVERLOAD.tag() + ")";
        }
        if (verdict.decision().isEmpty()) {
            return (verdict.admitted() ? "admitted" : "rejected") + "(redis_unavailable)";
        }
        AdmissionDecision d = verdict.decision().get();
        return switch (d.outcome()) {
            case ADMITTED -> "admitted";
            case DUPLICATE -> "rejected(merged)";
            case BLOCKED -> "rejected(blocked)";
            case CONCURRENT -> "rejected(" + d.refusedBy().map(Object::toString).orElse("?") + " max-concurrent)";
            case LIMITED, TOO_HEAVY -> "rejected(" + d.refusedBy().map(Object::toString).orElse("?") + " "
                    + d.refusedLimit().map(Object::toString).orElse("?") + ")";
        };
    }

    /**
     * The shadow limits and caps that would have refused the call: the call record's {@code wouldRefuse} and the
     * {@code limit} tags of trunkgate_calls_would_refuse_total.
     */
    static List<String> wouldRefuse(AdmissionVerdict verdict) {
        return verdict.decision().map(d -> d.wouldRefuse().stream().map(WouldRefuse::label).toList()).orElse(List.of());
    }

    /** The call record's {@code admission} field. */
    static String recordOutcome(AdmissionVerdict verdict) {
        if (verdict.gatewayBehind()) {
            return "shed";
        }
        return verdict.decision().map(d -> switch (d.outcome()) {
            case ADMITTED -> "admitted";
            case DUPLICATE -> "merged";
            case BLOCKED -> "blocked";
            case LIMITED, TOO_HEAVY, CONCURRENT -> "rejected";
        }).orElse(verdict.admitted() ? "admitted" : "redis_unavailable");
    }

    /**
     * The call record's {@code refusedBy}: the scope and the limit (or "max-concurrent") that refused it, the shed
     * reason of a call refused as overload, or null.
     */
    static String refusedBy(AdmissionVerdict verdict, String peerId) {
        if (verdict.gatewayBehind()) {
            return ShedReason.OVERLOAD.tag();
        }
        Optional<AdmissionDecision> capped = verdict.decision().filter(d -> d.outcome() == Outcome.CONCURRENT);
        if (capped.isPresent()) {
            return capped.get().refusedBy().map(Object::toString).orElse(peerId) + " max-concurrent";
        }
        return verdict.decision()
                .filter(d -> d.refusedLimit().isPresent())
                .map(d -> d.refusedBy().map(Object::toString).orElse(peerId) + " " + d.refusedLimit().get())
                .orElse(null);
    }

    /** The {@code reason} tag of trunkgate_calls_rejected_total. */
    static String rejectionReason(AdmissionVerdict verdict) {
        return verdict.decision().map(d -> rejectionReason(d.outcome())).orElse(REDIS_UNAVAILABLE);
    }

    /** Every {@link #rejectionReason}: each outcome but admitted, and the Redis-down policy's refusal. */
    static List<String> rejectionReasons() {
        return Stream.concat(Arrays.stream(Outcome.values()).filter(o -> o != Outcome.ADMITTED)
                .map(AdmissionLabels::rejectionReason), Stream.of(REDIS_UNAVAILABLE)).toList();
    }

    private static String rejectionReason(Outcome outcome) {
        return outcome == Outcome.DUPLICATE ? "merged" : outcome.name().toLowerCase(Locale.ROOT);
    }

    /**
     * The fleet already admitted this call (same Call-ID, From tag and CSeq): the INVITE is a merged request,
     * refused without counting (a new CSeq, as after a 407 challenge, is a new call).
     */
    static boolean duplicate(AdmissionVerdict verdict) {
        return verdict.decision().map(d -> d.outcome() == AdmissionDecision.Outcome.DUPLICATE).orElse(false);
    }
}
