package io.trunkgate.sip.jainsip;

import gov.nist.core.InternalErrorHandler;
import gov.nist.javax.sip.header.ContentLength;
import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.message.SIPMessage;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Collection;
import javax.sip.header.ViaHeader;

/**
 * The bytes JAIN-SIP's {@code encodeAsBytes} writes for a message, with fewer copies. JAIN-SIP grows a
 * {@link StringBuilder} from 16 characters, makes a string of it, the bytes of that string, the bytes of the start
 * line, and joins them and the body into a last array: about six times a message's size for each message sent (and
 * a server transaction encodes each response twice, once to send it and once to keep for retransmissions). Here the
 * builder starts at about the message's size and its characters are written straight into the array sent. Only a
 * message whose body charset is UTF-8, the default, is encoded here; {@link #encode} answers null for any other,
 * which JAIN-SIP then encodes.
 */
final class WireEncoding {

    /** Room for what a proxy adds to a message it received (a Via, Record-Routes) beyond its size as received. */
    private static final int ADDED = 256;

    private WireEncoding() {
    }

    /**
     * What JAIN-SIP's {@code encodeAsBytes(transport)} gives for {@code message}, whose start line encodes as
     * {@code startLine} and whose headers are {@code headers} with {@code contentLength}; null when the message is
     * one JAIN-SIP must encode itself (no Via, no Content-Length, or a body charset other than UTF-8).
     */
    static byte[] encode(SIPMessage message, String startLine, String transport, Collection<SIPHeader> headers,
                         ContentLength contentLength, String charset) {
        ViaHeader topVia = (ViaHeader) message.getHeader(ViaHeader.NAME);
        if (topVia == null || contentLength == null || !"UTF-8".equalsIgnoreCase(charset)) {
            return null;
        }
        try {
            // as JAIN-SIP does: the transport the message leaves on is written into its top Via
            topVia.setTransport(transport);
        } catch (ParseException e) {
            InternalErrorHandler.handleException(e);
        }
        StringBuilder encoding = new StringBuilder(message.getSize() + ADDED);
        encoding.append(startLine);
        synchronized (headers) {
            for (SIPHeader header : headers) {
                if (!(header instanceof ContentLength)) {
                    header.encode(encoding);
                }
            }
        }
        contentLength.encode(encoding);
        encoding.append("\r\n");
        byte[] content = message.getRawContent();
        int length = encoding.length();
        int bodyLength = content == null ? 0 : content.length;
        byte[] wire = null;
        for (int i = 0; i < length; i++) {
            char c = encoding.charAt(i);
            if (c >= 0x80) {
                // the start line and the headers are encoded in UTF-8 each; the start line ends with CRLF, so
                // encoding them together gives the same bytes
                byte[] head = encoding.toString().getBytes(StandardCharsets.UTF_8);
                wire = new byte[head.length + bodyLength];
                System.arraycopy(head, 0, wire, 0, head.length);
                length = head.length;
                break;
            }
        }
        if (wire == null) {
            wire = new byte[length + bodyLength];
            for (int i = 0; i < length; i++) {
                wire[i] = (byte) encoding.charAt(i);
            }
        }
        if (content != null) {
            System.arraycopy(content, 0, wire, length, bodyLength);
        }
        return wire;
    }
}
