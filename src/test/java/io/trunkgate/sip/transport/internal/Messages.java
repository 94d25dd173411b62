package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.SipHead;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** SIP messages and channels the handler tests feed each other. */
final class Messages {

    static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.9", 5099);
    static final InetSocketAddress GATEWAY = new InetSocketAddress("127.0.0.1", 5060);

    private Messages() {
    }

    /** A new INVITE (no To tag) of the call {@code callId}, with a body of 4 bytes. */
    static String invite(String callId) {
        return "INVITE sip:+15551234@gw SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.9:5099;branch=z9hG4bK-" + callId + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:alice@example.com>;tag=a1\r\n"
                + "To: <sip:+15551234@gw>\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Content-Length: 4\r\n"
                + "\r\n"
                + "v=0\n";
    }

    /** A BYE in the dialog of the call {@code callId} (To tagged), without a body. */
    static String bye(String callId, int cseq) {
        return "BYE sip:bob@127.0.0.1 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.9:5099;branch=z9hG4bK-b" + cseq + "\r\n"
                + "From: <sip:alice@example.com>;tag=a1\r\n"
                + "To: <sip:+15551234@gw>;tag=b1\r\n"
                + "i: " + callId + "\r\n"
                + "CSeq: " + cseq + " BYE\r\n"
                + "l: 0\r\n"
                + "\r\n";
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    static ByteBuf buffer(String text) {
        return Unpooled.wrappedBuffer(bytes(text));
    }

    static String text(ByteBuf buffer) {
        try {
            return buffer.toString(StandardCharsets.ISO_8859_1);
        } finally {
            buffer.release();
        }
    }

    static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** {@code text} as received over {@code transport} from the caller, at {@code nanos}. */
    static InboundMessage received(String text, Transport transport, long nanos) {
        byte[] bytes = bytes(text);
        return new InboundMessage(bytes, SipHead.read(bytes, 0, bytes.length), CALLER, GATEWAY, transport,
                Optional.empty(), Optional.empty(), nanos);
    }

    /**
     * An embedded channel with {@code handlers}, registered and active, whose far end is at {@code remote} (an
     * embedded channel's is no IP address).
     */
    static EmbeddedChannel from(InetSocketAddress remote, ChannelHandler... handlers) {
        return new EmbeddedChannel(true, false, handlers) {
            @Override
            protected SocketAddress remoteAddress0() {
                return remote;
            }

            @Override
            protected SocketAddress localAddress0() {
                return GATEWAY;
            }
        };
    }
}
