package io.trunkgate.sip;

import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.records.CallRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A call whose carrier challenged it: its 401 or 407 went to the caller, who is expected to send the INVITE again
 * with credentials. That retry goes on as the same call ({@link CallRegistry#takeChallenge}): not admitted nor
 * counted again in its peer's windows, under the leases the call already holds, with one record whose attempts begin
 * with the challenged ones. A call that no retry continues within {@link CallRegistry#CHALLENGE_SPAN} ends then:
 * {@link #over} releases its leases and writes its record, as its final answer would have.
 *
 * @param counted    the identity the call was admitted and leased under: its first INVITE's
 * @param cseq       the CSeq of the INVITE challenged last: the retry's must be higher
 * @param challenges how many times the call was challenged so far
 * @param verdict    the call's admission, made for its first INVITE
 * @param attempts   its attempts so far, each with its final status (the challenges among them)
 * @param tried      the carriers it was sent to so far, {@code reroutes} its reroutes
 * @param wouldRefuse the carriers' shadow limits that would have refused its attempts so far
 */
record Challenge(String peerId, CallIdentity counted, long cseq, int challenges, AdmissionVerdict verdict,
                 String admission, Instant invitedAt, long arrivedNanos, CallRecord.Caller caller,
                 List<RecordFields.Attempt> attempts, List<String> tried, List<String> reroutes,
                 List<String> wouldRefuse, Duration held, Runnable over) {

    /**
     * A call is continued across this many challenges at most: a proxy's 407 and then the callee's 401. A caller
     * challenged again after that is refused by its carrier, and its next INVITE is a call of its own.
     */
    static final int MAX_CHALLENGES = 2;

    Challenge {
        attempts = List.copyOf(attempts);
        tried = List.copyOf(tried);
        reroutes = List.copyOf(reroutes);
        wouldRefuse = List.copyOf(wouldRefuse);
    }

    /** Whether a 401 or 407 answering a call challenged {@code challenges} times so far leaves it open to a retry. */
    static boolean continues(int status, int challenges) {
        return (status == 401 || status == 407) && challenges < MAX_CHALLENGES;
    }
}
