package io.trunkgate.whatif;

import java.net.InetAddress;
import java.time.Instant;

/**
 * What a replay needs of one call record.
 *
 * @param where      "file:line", to point at the record
 * @param invitedAt  when the INVITE arrived
 * @param callKey    the call's identity (Call-ID, From tag, CSeq), as the gateway gave it to admission
 * @param source     the INVITE's source address, which picks the peer under the configuration replayed
 * @param peer       the peer the gateway that wrote the record found
 * @param admission  the record's {@code admission}
 * @param refusedBy  the record's {@code refusedBy}, or null
 */
record RecordedCall(String where, Instant invitedAt, String callKey, InetAddress source, String peer,
                    String admission, String refusedBy) {

    long invitedMicros() {
        return invitedAt.getEpochSecond() * 1_000_000L + invitedAt.getNano() / 1000;
    }
}
