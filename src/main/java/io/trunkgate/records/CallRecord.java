package io.trunkgate.records;

import java.time.Instant;
import java.util.List;

/**
 * One call as it ended, the line written for billing and debugging (documented field by field in
 * conf/README.md, "Call records").
 *
 * @param admission  {@code admitted}, {@code merged}, {@code rejected}, {@code blocked}, {@code shed} or
 *                   {@code redis_unavailable}
 * @param refusedBy  the limit that refused the call ("peer:acme 10/1000ms"), or null
 * @param carriers   carriers tried, in order
 * @param reroutes   each move to another carrier, as "from->to:reason"
 * @param heldMs     time held for pacing slots, all attempts together
 * @param answeredAt when the 2xx was relayed, or null for a call never answered
 * @param endedAt    when the call ended: its final failure, or the end of the dialog
 * @param durationMs answered time (end minus answer), 0 for a call never answered
 * @param finalStatus the final status of the INVITE upstream
 * @param endedBy    {@code failed}, {@code bye}, {@code timeout} (no BYE within sip.dialog-timeout),
 *                   {@code session_expired} (a negotiated session timer not refreshed), {@code max_call_length}
 *                   or {@code shutdown}
 */
public record CallRecord(String callId, String peer, String group, String admission, String refusedBy,
                         List<String> carriers, List<String> reroutes, long heldMs, Instant invitedAt,
                         Instant answeredAt, Instant endedAt, long durationMs, int finalStatus, String endedBy,
                         String gateway) {

    /** This answered call ended {@code at}, by {@code endedBy}: its duration runs from the answer. */
    public CallRecord ended(Instant at, String endedBy) {
        long duration = answeredAt == null ? 0 : Math.max(0, java.time.Duration.between(answeredAt, at).toMillis());
        return new CallRecord(callId, peer, group, admission, refusedBy, carriers, reroutes, heldMs, invitedAt,
                answeredAt, at, duration, finalStatus, endedBy, gateway);
    }
}
