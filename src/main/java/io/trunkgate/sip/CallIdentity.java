package io.trunkgate.sip;

import java.util.Objects;
import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;

/**
 * What makes an INVITE one call, as RFC 3261 says: its Call-ID, the caller's From tag and its CSeq number (§8.2.2.2
 * merged requests, §12 dialogs). Two INVITEs with the same identity are one call, whatever their branches: the
 * second is a merged request and never reaches a carrier nor counts again. A new From tag is a new call, counted in
 * every window and cap; so is a new CSeq once the call before it with that Call-ID and From tag has ended (while
 * it is in progress or its dialog is up, another INVITE outside that dialog is refused 482: see SipProxy). Admission, leases, dialogs and records are keyed by it, so no request can
 * release or end a call that is not its own.
 *
 * @param fromTag the From tag, "" for a request without one
 */
record CallIdentity(String callId, String fromTag, long cseq) {

    CallIdentity {
        Objects.requireNonNull(callId, "callId");
        fromTag = Objects.requireNonNullElse(fromTag, "");
    }

    static CallIdentity of(Request invite) {
        return new CallIdentity(SipMessages.callId(invite), SipMessages.fromTag(invite),
                ((CSeqHeader) invite.getHeader(CSeqHeader.NAME)).getSeqNumber());
    }

    /** The call as one string, for the fleet's admission dedupe and the call's leases (hashed there). */
    String key() {
        return callId + '\n' + fromTag + '\n' + cseq;
    }
}
