package io.trunkgate.whatif;

import java.net.InetAddress;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * What a replay needs of one call record.
 *
 * @param where       "file:line", to point at the record
 * @param gateway     the instance that wrote the record ("" when the record does not say)
 * @param gatewayStartedAt when that instance started ({@code gatewayStartedAt}): one run of it; null when the
 *                    record predates the field
 * @param invitedAt   when the INVITE arrived
 * @param decidedAt   when Redis decided the call's admission, on Redis's clock: the record's {@code decidedAt};
 *                    null when Redis did not decide it or the record predates the field
 * @param redisDecided false when the record says Redis did not decide the call ({@code decidedAt} null): the
 *                    Redis-down policy did, or the call was shed; true also for a record without the field
 * @param parsed      whether the gateway read the INVITE before deciding (the record has its transport): a call
 *                    shed after that was sent to Redis, whose answer came too late
 * @param endedAt     when the call ended: the record's {@code endedAt}, else {@code answeredAt} plus
 *                    {@code durationMs}, else its arrival
 * @param callKey     the call's identity (Call-ID, From tag, CSeq), as the gateway gave it to admission
 * @param source      the INVITE's source address, which picks the peer under the configuration replayed
 * @param peer        the peer the gateway that wrote the record found
 * @param admission   the record's {@code admission}
 * @param refusedBy   the record's {@code refusedBy}, or null
 * @param wouldRefuse the record's {@code wouldRefuse}
 * @param number      the number the call was routed on ({@code requestUser}), "" when the record has none
 * @param attempts    the carriers the call was sent to, in order, with how long it waited for each one's slot (ms),
 *                    when it was sent and what the carrier answered
 * @param reroutes    each move to another carrier: the carrier left and why ({@code over_max_wait},
 *                    {@code at_capacity}, {@code failure_response(503)}, ...)
 */
record RecordedCall(String where, String gateway, Instant gatewayStartedAt, Instant invitedAt, Instant decidedAt,
                    boolean redisDecided, boolean parsed, Instant endedAt, String callKey, InetAddress source,
                    String peer, String admission, String refusedBy, List<String> wouldRefuse, String number,
                    List<Attempt> attempts, List<Reroute> reroutes) {

    /** One INVITE sent to a carrier; {@code finalStatus} 0: no final answer came (silence, or the call ended). */
    record Attempt(String carrier, long slotWaitMs, Instant sentAt, int finalStatus) {
    }

    record Reroute(String from, String reason) {
    }

    /**
     * When the replay decides the call, in microseconds: when Redis decided it ({@code decidedAt}, the time its
     * windows counted it at), else when it arrived.
     */
    long decidedMicros() {
        return micros(decidedAt != null ? decidedAt : invitedAt);
    }

    /**
     * Whether Redis's answer for the call is unknown though the call may have counted in its windows: Redis was out
     * of reach or answered too late (the Redis-down policy decided, or the call was shed waiting for the answer).
     * A call shed before it was read never reached Redis.
     */
    boolean redisUnanswered() {
        return !redisDecided && (!admission.equals("shed") || parsed);
    }

    /** How long the call was up, from its decision to its end, in ms (at least 0). */
    long upMs() {
        return Math.max(0, (micros(endedAt) - decidedMicros()) / 1000);
    }

    /** The last attempt at {@code carrier}, if the record has one, and whether it is the record's last. */
    Optional<Attempt> attemptAt(String carrier) {
        for (int i = attempts.size() - 1; i >= 0; i--) {
            if (attempts.get(i).carrier().equals(carrier)) {
                return Optional.of(attempts.get(i));
            }
        }
        return Optional.empty();
    }

    /** The attempt after {@code attempt}, if any. */
    Optional<Attempt> after(Attempt attempt) {
        int i = attempts.indexOf(attempt);
        return i >= 0 && i + 1 < attempts.size() ? Optional.of(attempts.get(i + 1)) : Optional.empty();
    }

    /** The record's last attempt, if any: the carrier that answered, or the last one tried. */
    Optional<Attempt> finalAttempt() {
        return attempts.isEmpty() ? Optional.empty() : Optional.of(attempts.get(attempts.size() - 1));
    }

    static long micros(Instant at) {
        return at.getEpochSecond() * 1_000_000L + at.getNano() / 1000;
    }
}
