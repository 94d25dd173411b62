package io.trunkgate.sip.transaction.internal;

import java.util.Locale;
import javax.sip.header.CSeqHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;

/**
 * What a response shares with the client transaction it belongs to (RFC 3261 §17.1.3): the branch of the top
 * Via (the gateway's own, so unique without the sent-by) and the method of the CSeq (a CANCEL's branch is its
 * INVITE's).
 */
record ClientKey(String branch, String method) {

    /** The key of a message, or null when it has no top Via with a branch or no CSeq. */
    static ClientKey of(Message message) {
        ViaHeader via = (ViaHeader) message.getHeader(ViaHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) message.getHeader(CSeqHeader.NAME);
        if (via == null || via.getBranch() == null || cseq == null) {
            return null;
        }
        return new ClientKey(via.getBranch().toLowerCase(Locale.ROOT), cseq.getMethod());
    }
}
