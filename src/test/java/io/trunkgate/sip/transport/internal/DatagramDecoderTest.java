package io.trunkgate.sip.transport.internal;

import static io.trunkgate.sip.transport.internal.Messages.CALLER;
import static io.trunkgate.sip.transport.internal.Messages.GATEWAY;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.Flow;
import io.trunkgate.sip.transport.InboundMessage;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DatagramDecoderTest {

    private static final long NOW = 123_456_789L;

    private final Flow flow = new Flow() {
        @Override
        public Transport transport() {
            return Transport.UDP;
        }

        @Override
        public InetSocketAddress remote() {
            return CALLER;
        }

        @Override
        public InetSocketAddress local() {
            return GATEWAY;
        }
    };
    private final EmbeddedChannel channel = new EmbeddedChannel(new DatagramDecoder(sender -> flow, () -> NOW));

    private static DatagramPacket datagram(ByteBuf content) {
        return new DatagramPacket(content, GATEWAY, CALLER);
    }

    @Test
    void aDatagramIsAMessageWithItsHeadSenderAndFlowAndItsBufferIsReleased() {
        ByteBuf content = Messages.buffer(Messages.invite("call-1@example.com"));
        channel.writeInbound(datagram(content));

        InboundMessage message = channel.readInbound();
        assertArrayEquals(Messages.bytes(Messages.invite("call-1@example.com")), message.bytes());
        assertEquals("call-1@example.com", message.head().callId());
        assertTrue(message.head().isNewInvite());
        assertEquals(CALLER, message.remote());
        assertEquals(GATEWAY, message.local());
        assertEquals(Transport.UDP, message.transport());
        assertSame(flow, message.flow().orElseThrow());
        assertEquals(Optional.empty(), message.certificate());
        assertEquals(NOW, message.receivedNanos());
        assertEquals(0, content.refCnt(), "the socket's buffer is given back");
    }

    @Test
    void aKeepAliveOrAnEmptyDatagramIsDropped() {
        ByteBuf keepAlive = Messages.buffer("\r\n\r\n");
        channel.writeInbound(datagram(keepAlive), datagram(Unpooled.buffer(0)));
        assertNull(channel.readInbound());
        assertEquals(0, keepAlive.refCnt());
    }

    @Test
    void junkIsDeliveredForTheParserToAnswerOrDrop() {
        channel.writeInbound(datagram(Messages.buffer("hello\r\n")));
        InboundMessage message = channel.readInbound();
        assertNull(message.head().callId());
        assertFalse(message.head().isNewInvite());
    }
}
