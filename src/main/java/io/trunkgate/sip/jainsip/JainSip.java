package io.trunkgate.sip.jainsip;

import java.util.Optional;
import io.trunkgate.config.PresentedCertificate;
import gov.nist.javax.sip.Utils;
import gov.nist.javax.sip.header.extensions.SessionExpiresHeader;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ListIterator;
import javax.sip.SipFactory;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * What the proxy needs of JAIN-SIP's implementation beyond the {@code javax.sip} API: its factories, its tag and
 * branch generator, and what its messages know that the API does not expose (where a message came from, its size
 * as received, its SIP version, headers it kept unparsed, and its bytes on the wire).
 */
public final class JainSip {

    private JainSip() {
    }

    /** The {@code javax.sip} factory set to JAIN-SIP's implementation. */
    public static SipFactory factory() {
        SipFactory factory = SipFactory.getInstance();
        factory.setPathName("gov.nist");
        return factory;
    }

    /** A new random tag for a From or To header. */
    public static String newTag() {
        return Utils.getInstance().generateTag();
    }

    /** A new Via branch, with RFC 3261's magic cookie. */
    public static String newBranch() {
        return Utils.getInstance().generateBranchId();
    }

    /** The seconds of the RFC 4028 Session-Expires header (full or compact form), 0 when it has none. */
    public static int sessionExpiresSeconds(Message message) {
        return message.getHeader(SessionExpiresHeader.NAME) instanceof SessionExpiresHeader header
                ? Math.max(0, header.getExpires()) : 0;
    }

    /**
     * The client certificate of the TLS connection a received request came on, if it came on one and the caller
     * sent a certificate ({@link ReceivedMessageParser} puts it on the request as it parses it).
     */
    public static Optional<PresentedCertificate> callerCertificate(Request request) {
        return ((SIPMessage) request).getApplicationData() instanceof PresentedCertificate certificate
                ? Optional.of(certificate) : Optional.empty();
    }

    /**
     * The bytes of {@code message} to send over {@code transport} ("UDP", "TCP" or "TLS"): its top Via is made to
     * say that transport first, for a request of the gateway's.
     */
    public static byte[] encode(Message message, String transport) {
        return ((SIPMessage) message).encodeAsBytes(transport);
    }

    /** The address the message came from: the datagram's or the connection's source. */
    public static InetAddress source(Message message) {
        SIPMessage sip = (SIPMessage) message;
        return sip.getPeerPacketSourceAddress() != null ? sip.getPeerPacketSourceAddress() : sip.getRemoteAddress();
    }

    /** Where a received message arrived: the gateway's address and port it was sent to. */
    public static InetSocketAddress local(Message message) {
        SIPMessage sip = (SIPMessage) message;
        return new InetSocketAddress(sip.getLocalAddress(), sip.getLocalPort());
    }

    /** The port the message came from, as {@link #source} reads its address. */
    public static int sourcePort(Message message) {
        SIPMessage sip = (SIPMessage) message;
        return sip.getPeerPacketSourceAddress() != null ? sip.getPeerPacketSourcePort() : sip.getRemotePort();
    }

    /** The size of the message's header section, as parsed. */
    public static int headerSize(Message message) {
        return ((SIPMessage) message).getSize();
    }

    /** The message's size as the stack encodes it to send over {@code transport} (its top Via says that transport). */
    public static int wireSize(Message message, String transport) {
        return ((SIPMessage) message).encodeAsBytes(transport).length;
    }

    /** The SIP version on the request line, as written (the parser reads any version as SIP/2.0). */
    public static String sipVersion(Request request) {
        return ((SIPRequest) request).getSIPVersion();
    }

    /**
     * Whether the request has a {@code name} header the parser could not read (e.g. "Max-Forwards: -5"): the stack
     * keeps such a header aside as text instead of failing.
     */
    public static boolean hasUnparsed(Request request, String name) {
        for (ListIterator<String> it = ((SIPMessage) request).getUnrecognizedHeaders(); it.hasNext(); ) {
            String header = it.next();
            if (header.regionMatches(true, 0, name, 0, name.length())) {
                return true;
            }
        }
        return false;
    }
}
