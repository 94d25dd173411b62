package io.trunkgate.sip.transaction.internal;

import java.util.Locale;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;

/**
 * What a request shares with the server transaction it belongs to (RFC 3261 §17.2.3). A top Via branch with the
 * magic cookie: that branch, the Via's sent-by and the method (an ACK's is its INVITE's). Without it (RFC 2543):
 * the Request-URI, the To and From tags, the Call-ID, the CSeq and the top Via; an ACK also needs the To tag of
 * the final response it acknowledges ({@link InviteServer#finalToTag}).
 */
final class ServerKeys {

    private static final String MAGIC_COOKIE = "z9hG4bK";

    private ServerKeys() {
    }

    /** A transaction made by an RFC 3261 client: its branch is unique to it. */
    record Branch(String branch, String sentBy, String method) {
    }

    /** A transaction made by an RFC 2543 client, whose branch (if any) says nothing. */
    record Legacy(String requestUri, String toTag, String fromTag, String callId, long cseq, String method,
                  String via) {
    }

    /** The key of the transaction {@code request} makes or is a copy of (an ACK: of its INVITE's); null without a Via. */
    static Object of(Request request) {
        return key(request, transactionMethod(request.getMethod()), toTag(request));
    }

    /**
     * The key of the INVITE transaction a CANCEL or ACK names (RFC 3261 §9.2, §17.2.3), with the To tag given (an
     * RFC 2543 ACK carries the response's, not the INVITE's); null without a Via.
     */
    static Object invite(Request request, String toTag) {
        return key(request, Request.INVITE, toTag);
    }

    private static Object key(Request request, String method, String toTag) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        if (via == null) {
            return null;
        }
        String branch = via.getBranch();
        if (branch != null && branch.regionMatches(true, 0, MAGIC_COOKIE, 0, MAGIC_COOKIE.length())) {
            return new Branch(branch.toLowerCase(Locale.ROOT), sentBy(via), method);
        }
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        CSeqHeader cseq = (CSeqHeader) request.getHeader(CSeqHeader.NAME);
        FromHeader from = (FromHeader) request.getHeader(FromHeader.NAME);
        return new Legacy(request.getRequestURI().toString(), toTag, from == null ? null : from.getTag(),
                callId == null ? null : callId.getCallId(), cseq == null ? -1 : cseq.getSeqNumber(), method,
                via.toString());
    }

    static String toTag(Message message) {
        ToHeader to = (ToHeader) message.getHeader(ToHeader.NAME);
        return to == null ? null : to.getTag();
    }

    private static String transactionMethod(String method) {
        return Request.ACK.equals(method) ? Request.INVITE : method;
    }

    /** The sent-by as compared: the host without brackets or case, and the port, the transport's default if none. */
    private static String sentBy(ViaHeader via) {
        String host = via.getHost() == null ? "" : via.getHost().toLowerCase(Locale.ROOT);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = via.getPort() > 0 ? via.getPort() : "TLS".equalsIgnoreCase(via.getTransport()) ? 5061 : 5060;
        return host + ":" + port;
    }
}
