package io.trunkgate.records;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * One call as it ended, the line written for billing, fraud checks and debugging (every field is described in
 * docs/records.md).
 *
 * @param caller      where the INVITE came from and the numbers it carried
 * @param admission   {@code admitted}, {@code merged}, {@code rejected}, {@code blocked}, {@code shed} or
 *                    {@code redis_unavailable}
 * @param refusedBy   the limit that refused the call ("peer:acme 10/1000ms"), or null
 * @param wouldRefuse the shadow limits and caps that would have refused the call had they been enforced
 *                    ("peer:acme 10/1000ms", "peer:acme max-concurrent"); empty when none
 * @param carriers    carriers routing chose, in order (including those given up before an INVITE was sent)
 * @param reroutes    each move to another carrier, as "from->to:reason"
 * @param attempts    each INVITE sent to a carrier, in order
 * @param heldMs      time held for pacing slots, all attempts together
 * @param decidedAt   when Redis decided the call's admission, on Redis's clock (the clock of every window), or null
 *                    when Redis did not decide it (shed, Redis out of reach)
 * @param pddMs       from the INVITE's arrival to the first 18x relayed to the caller, or null
 * @param setupMs     from the INVITE's arrival to its final response to the caller
 * @param answeredAt  when the 2xx was relayed, or null for a call never answered
 * @param endedAt     when the call ended: its final failure, or the end of the dialog
 * @param durationMs  answered time (end minus answer), 0 for a call never answered
 * @param finalStatus the final status of the INVITE upstream
 * @param reason      the Reason header(s) of that final response, or null
 * @param endedBy     {@code failed}, {@code bye}, {@code timeout} (no BYE within sip.dialog-timeout),
 *                    {@code session_expired} (a negotiated session timer not refreshed), {@code no_ack} (answered, never
 *                    acknowledged nor ended), {@code max_call_length}, {@code shutdown}
 *                    or {@code operator} (hung up through the admin API)
 * @param hungUpBy    {@code caller}, {@code callee}, {@code gateway} or {@code operator}: who ended the call
 * @param hangupReason the Reason header(s) of the BYE that ended an answered call, or null
 */
public record CallRecord(String callId, String gateway, Caller caller, String peer, String group,
                         String admission, String refusedBy, List<String> wouldRefuse, List<String> carriers,
                         List<String> reroutes,
                         List<Attempt> attempts, long heldMs, Instant invitedAt, Instant decidedAt, Long pddMs, Long setupMs,
                         Instant answeredAt, Instant endedAt, long durationMs, int finalStatus, String reason,
                         String endedBy, String hungUpBy, String hangupReason) {

    public CallRecord {
        wouldRefuse = List.copyOf(wouldRefuse);
        carriers = List.copyOf(carriers);
        reroutes = List.copyOf(reroutes);
        attempts = List.copyOf(attempts);
    }

    /**
     * Where a call came from and the numbers it carried.
     *
     * @param sourceAddress the INVITE's source, "ip:port"
     * @param transport     {@code udp}, {@code tcp} or {@code tls}
     * @param fromUser      the user part of the From URI (the calling number), or null
     * @param toUser        the user part of the To URI, or null
     * @param requestUser   the user part of the Request-URI (the number routed on), or null
     * @param paiUser       the user part of the first P-Asserted-Identity, when the INVITE has one, else null
     * @param fromTag       the From tag: with the Call-ID and the CSeq number, the call's identity (RFC 3261)
     * @param cseq          the INVITE's CSeq number, or null when it could not be read (a shed INVITE's)
     */
    public record Caller(String sourceAddress, String transport, String fromUser, String toUser, String requestUser,
                         String paiUser, String fromTag, Long cseq) {

        /**
         * A caller known only by its address, From tag and CSeq number (an INVITE shed before it was parsed;
         * {@code cseq} null when it could not be read).
         */
        public static Caller at(String sourceAddress, String fromTag, Long cseq) {
            return new Caller(sourceAddress, null, null, null, null, null, fromTag, cseq);
        }
    }

    /**
     * One INVITE sent to a carrier.
     *
     * @param carrier            the carrier's id
     * @param address            where it went, "ip:port/transport"
     * @param slotWaitMs         how long the call waited for this carrier's pacing slot
     * @param sentAt             when the INVITE left
     * @param finalStatus        the carrier's final response, 0 for none (silence, or the call ended first)
     * @param firstProvisionalMs from sending to the carrier's first provisional response (100 included), or null
     * @param ringingMs          from sending to the carrier's first 180 or 183 (the post-dial delay), or null
     * @param answerMs           from sending to the carrier's 2xx, or null
     * @param shadowWaitMs       for a carrier whose pacing is in shadow, how long the call would have waited for its
     *                           slot had the pacing been enforced (sent at once instead); null otherwise
     */
    public record Attempt(String carrier, String address, long slotWaitMs, Instant sentAt, int finalStatus,
                          Long firstProvisionalMs, Long ringingMs, Long answerMs, Long shadowWaitMs) {
    }

    /** The carrier of the last attempt: the one that answered, or the last one tried; null if none was. */
    public String finalCarrier() {
        return attempts.isEmpty() ? null : attempts.get(attempts.size() - 1).carrier();
    }

    /**
     * This answered call ended {@code at}, by {@code endedBy}, hung up by {@code hungUpBy} (with the BYE's
     * {@code hangupReason}, or null): its duration runs from the answer.
     */
    public CallRecord ended(Instant at, String endedBy, String hungUpBy, String hangupReason) {
        long duration = answeredAt == null ? 0 : Math.max(0, Duration.between(answeredAt, at).toMillis());
        return new CallRecord(callId, gateway, caller, peer, group, admission, refusedBy, wouldRefuse, carriers, reroutes,
                attempts, heldMs, invitedAt, decidedAt, pddMs, setupMs, answeredAt, at, duration, finalStatus, reason, endedBy,
                hungUpBy, hangupReason);
    }
}
