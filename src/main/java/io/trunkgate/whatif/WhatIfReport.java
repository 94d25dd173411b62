package io.trunkgate.whatif;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.List;
import java.util.Map;

/**
 * What a replay found: per peer (under the configuration replayed) the calls offered, admitted and refused by which
 * limit, the shadow limits that would have refused, and beside them what the records say happened; per carrier the
 * calls sent, paced and moved on; per max-concurrent cap the calls over it; the calls that were not replayed and
 * why; the lines that were not records.
 *
 * @param peers       by peer id
 * @param carriers    by carrier id: the admitted calls paced through each carrier's slots
 * @param caps        by cap ("peer:a max-concurrent", "group:g max-concurrent", "carrier:x max-concurrent"): the calls
 *                    over each max-concurrent cap, replayed and recorded
 * @param differences the calls whose replayed decision differs from the recorded one ("file:line: recorded X,
 *                    replayed Y"), at most {@link #LISTED}
 * @param differencesBy how many calls' replayed decision differs, by why (what the records show around the call
 *                    that its windows counted differently; {@link #NO_CAUSE} when they show nothing)
 * @param notReplayed how many calls were not replayed, by reason
 * @param brokenLines lines that are not call records, "file:line: why", at most {@link #LISTED}
 * @param brokenCount how many lines were not call records
 */
public record WhatIfReport(Map<String, PeerFigures> peers, Map<String, CarrierFigures> carriers,
                           Map<String, CapFigures> caps, List<String> differences, Map<String, Integer> differencesBy,
                           Map<String, Integer> notReplayed, List<String> brokenLines, int brokenCount) {

    /** Why a call differs when the records show no cause: the configuration is not the one that decided it. */
    static final String NO_CAUSE = "no cause in the records: the configuration replayed is not the one that decided it"
            + " (a reload?)";

    /** How many differences and broken lines are listed (all are counted). */
    static final int LISTED = 20;

    /**
     * One peer's figures.
     *
     * @param offered          calls replayed
     * @param admitted         admitted by the replay
     * @param refusedBy        refused by the replay, by limit ("peer:acme 10/1000ms")
     * @param wouldRefuse      calls shadow limits would have refused, by limit
     * @param recordedAdmitted of the calls replayed, those the records say were admitted
     * @param recordedRefused  of the calls replayed, those the records say were refused over a limit
     * @param sameDecision     calls replayed whose decision (admitted, refused, merged) is the recorded one
     * @param timeline         the replayed calls over time
     */
    public record PeerFigures(long offered, long admitted, Map<String, Long> refusedBy, Map<String, Long> wouldRefuse,
                              long recordedAdmitted, long recordedRefused, long sameDecision, Timeline timeline) {
    }

    /**
     * One carrier's figures: the admitted calls routed to it (by the number they were routed on), each taking a
     * lease under the carrier's max-concurrent (when it has one) and a slot through lua/pace.lua at its arrival time,
     * then getting the carrier's answer (the record's).
     *
     * @param sent              calls that got a slot within the carrier's max-wait
     * @param overMaxWait       calls whose slot was beyond max-wait: moved on to the next carrier of their chain
     * @param atCapacity        calls that found the carrier at its max-concurrent (enforced): moved on
     * @param failedOver        calls sent whose answer the carrier's {@code failover-on} lists: moved on
     * @param noCarrierLeft     of the calls moved on, those that had no carrier left
     * @param delayMs           the pacing delay of the calls sent: p50, p95, p99 and max, in ms
     * @param recordedSent      calls the records say were sent to the carrier (each attempt)
     * @param recordedOverMaxWait calls the records say left the carrier over max-wait
     * @param recordedAtCapacity calls the records say left the carrier at capacity
     * @param recordedFailedOver calls the records say left the carrier on its answer (failure response or silence)
     * @param recordedDelayMs   the recorded slot waits of the attempts at the carrier: p50, p95, p99, max, in ms
     * @param timeline          calls sent ("admitted") and moved on over max-wait or at capacity ("refused") over
     *                          time, against the carrier's cps
     */
    public record CarrierFigures(long sent, long overMaxWait, long atCapacity, long failedOver, long noCarrierLeft,
                                 Map<String, Long> delayMs, long recordedSent, long recordedOverMaxWait,
                                 long recordedAtCapacity, long recordedFailedOver, Map<String, Long> recordedDelayMs,
                                 Timeline timeline) {
    }

    /**
     * One max-concurrent cap: calls over it in the replay (refused by it, or for a shadow cap the calls it would have
     * refused; at a carrier, moved on) beside the records' (refused by it, {@code wouldRefuse} naming it, or moved on
     * from the carrier {@code at_capacity}).
     *
     * @param max          the cap in the configuration replayed; 0 when it has none and only the records name it
     * @param shadow       whether the cap is in shadow mode
     * @param over         calls over it in the replay
     * @param recordedOver calls over it in the records
     */
    public record CapFigures(int max, boolean shadow, long over, long recordedOver) {
    }

    /**
     * A peer's (or carrier's) replayed calls over time, in buckets of {@code bucketSeconds} from {@code start}: at most
     * {@link #BUCKETS} buckets, one second each when the calls span less.
     *
     * @param admitted the calls admitted in each bucket
     * @param refused  the calls refused in each bucket
     * @param limits   the calls per second each limit of the peer and its group allows (max / window), by limit
     */
    public record Timeline(String start, long bucketSeconds, List<Long> admitted, List<Long> refused,
                           Map<String, Double> limits) {
        static final int BUCKETS = 1440;
    }

    /** Calls whose replayed decision differs from the recorded one. */
    public int differenceCount() {
        return differencesBy.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** Calls replayed, over all peers. */
    public long replayed() {
        return peers.values().stream().mapToLong(PeerFigures::offered).sum();
    }

    /** Calls replayed whose decision is the recorded one, over all peers. */
    public long sameDecisions() {
        return peers.values().stream().mapToLong(PeerFigures::sameDecision).sum();
    }

    /** The report as JSON. */
    public String json() {
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the report as JSON", e);
        }
    }
}
