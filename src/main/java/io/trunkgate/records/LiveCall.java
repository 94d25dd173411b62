package io.trunkgate.records;

import java.time.Instant;

/**
 * A call in progress, as an operator lists it (GET /api/calls, {@code trunkgate calls}).
 *
 * @param id         stable while the call lasts and the same on every phase: what {@code POST
 *                   /api/calls/{id}/hangup} takes (the Call-ID and the caller's From tag, base64url)
 * @param peer       the peer it came from
 * @param carrier    the carrier of its current attempt, or null before the first
 * @param caller     the calling number (the From user), or null
 * @param callee     the number routed on (the Request-URI user)
 * @param phase      {@code admitting}, {@code routing} (held for a carrier's slot, or choosing the next carrier),
 *                   {@code trying}, {@code proceeding}, {@code ringing} or {@code answered}
 * @param startedAt  when its INVITE arrived
 * @param answeredAt when the 2xx went to the caller, or null
 */
public record LiveCall(String id, String peer, String carrier, String caller, String callee, String phase,
                       Instant startedAt, Instant answeredAt) {
}
