package io.trunkgate.sip;

import io.trunkgate.records.CallRecord;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ListIterator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.sip.address.SipURI;
import javax.sip.address.TelURL;
import javax.sip.address.URI;
import javax.sip.header.FromHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderAddress;
import javax.sip.header.ReasonHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;

/** What a call record takes from SIP messages: the caller's numbers and address, Reason headers. */
final class RecordFields {

    static final String P_ASSERTED_IDENTITY = "P-Asserted-Identity";

    private RecordFields() {
    }

    /** The INVITE's source, transport, numbers (From, To, Request-URI, P-Asserted-Identity) and identity. */
    static CallRecord.Caller caller(Request invite, CallIdentity identity, InetAddress source, int sourcePort) {
        ViaHeader via = (ViaHeader) invite.getHeader(ViaHeader.NAME);
        FromHeader from = (FromHeader) invite.getHeader(FromHeader.NAME);
        ToHeader to = (ToHeader) invite.getHeader(ToHeader.NAME);
        Header pai = invite.getHeader(P_ASSERTED_IDENTITY);
        return new CallRecord.Caller(hostPort(source, sourcePort),
                via == null ? null : via.getTransport().toLowerCase(Locale.ROOT),
                from == null ? null : user(from.getAddress().getURI()),
                to == null ? null : user(to.getAddress().getURI()),
                user(invite.getRequestURI()),
                pai instanceof HeaderAddress address ? user(address.getAddress().getURI()) : null,
                identity.fromTag(), identity.cseq());
    }

    /** "ip:port", an IPv6 address in brackets. */
    static String hostPort(InetAddress address, int port) {
        String host = address.getHostAddress();
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    /** The user part of a SIP URI, the number of a tel URI ("+" kept for a global one), else null. */
    static String user(URI uri) {
        if (uri instanceof SipURI sip) {
            return sip.getUser();
        }
        if (uri instanceof TelURL tel) {
            return (tel.isGlobal() ? "+" : "") + tel.getPhoneNumber();
        }
        return null;
    }

    /** The message's Reason headers as "SIP;cause=503;text=\"...\"", several joined by ", "; null for none. */
    static String reason(Message message) {
        List<String> reasons = new ArrayList<>();
        for (ListIterator<?> it = message.getHeaders(ReasonHeader.NAME); it.hasNext(); ) {
            ReasonHeader reason = (ReasonHeader) it.next();
            String text = reason.getText();
            reasons.add(reason(reason.getProtocol(), reason.getCause(), text == null ? null : bare(text)));
        }
        return reasons.isEmpty() ? null : String.join(", ", reasons);
    }

    /** A Reason header's value as it reads on the wire, {@code text} (unquoted) quoted. */
    static String reason(String protocol, int cause, String text) {
        return protocol + ";cause=" + cause + (text == null ? "" : ";text=" + quoted(text));
    }

    /**
     * A Reason header's text unquoted. JAIN-SIP's {@code getText()} answers a parsed header's text bare but a header
     * it built with the quotes it added.
     */
    private static String bare(String text) {
        if (text.length() < 2 || text.charAt(0) != '"' || text.charAt(text.length() - 1) != '"') {
            return text;
        }
        StringBuilder bare = new StringBuilder(text.length());
        for (int i = 1; i < text.length() - 1; i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length() - 1) {
                c = text.charAt(++i);
            }
            bare.append(c);
        }
        return bare.toString();
    }

    /** An RFC 3261 quoted-string: '"' and '\' escaped. */
    private static String quoted(String text) {
        return '"' + text.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }

    /** One INVITE sent to a carrier, completed by the carrier's responses as they come. */
    static final class Attempt {
        private final String carrier;
        private final String address;
        private final long slotWaitMs;
        private final Long shadowWaitMs;
        private final CallTime time;
        private final Instant sentAt;
        private final long sentNanos;
        private int finalStatus;
        private Long firstProvisionalMs;
        private Long ringingMs;
        private Long answerMs;

        /** Being sent now, by {@code time}; {@code shadowWaitMs} null unless the carrier's pacing is in shadow. */
        Attempt(String carrier, String address, long slotWaitMs, Long shadowWaitMs, CallTime time) {
            this.carrier = carrier;
            this.address = address;
            this.slotWaitMs = slotWaitMs;
            this.shadowWaitMs = shadowWaitMs;
            this.time = time;
            this.sentAt = time.now();
            this.sentNanos = time.nanoTime();
        }

        /** The carrier's response of {@code status} to this attempt arrived now. */
        void responded(int status) {
            long sinceSent = TimeUnit.NANOSECONDS.toMillis(time.nanoTime() - sentNanos);
            if (status < 200) {
                if (firstProvisionalMs == null) {
                    firstProvisionalMs = sinceSent;
                }
                if (status > 100 && ringingMs == null) {
                    ringingMs = sinceSent;
                }
            } else if (finalStatus == 0) {
                finalStatus = status;
                if (status < 300) {
                    answerMs = sinceSent;
                }
            }
        }

        CallRecord.Attempt record() {
            return new CallRecord.Attempt(carrier, address, slotWaitMs, sentAt, finalStatus, firstProvisionalMs,
                    ringingMs, answerMs, shadowWaitMs);
        }
    }
}
