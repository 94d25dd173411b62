package io.trunkgate.whatif;

import java.net.InetAddress;
import java.time.Instant;
import java.util.List;

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
 * @param number     the number the call was routed on ({@code requestUser}), "" when the record has none
 * @param attempts   the carriers the call was sent to, in order, with how long it waited for each one's slot (ms)
 * @param overMaxWait the carriers the call left because their slot was beyond max-wait
 */
record RecordedCall(String where, Instant invitedAt, String callKey, InetAddress source, String peer,
                    String admission, String refusedBy, String number, List<Attempt> attempts,
                    List<String> overMaxWait) {

    record Attempt(String carrier, long slotWaitMs) {
    }

    long invitedMicros() {
        return invitedAt.getEpochSecond() * 1_000_000L + invitedAt.getNano() / 1000;
    }
}
