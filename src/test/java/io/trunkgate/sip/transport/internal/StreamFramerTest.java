package io.trunkgate.sip.transport.internal;

import static io.trunkgate.sip.transport.internal.Messages.CALLER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.throttle.SourceAnswerBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StreamFramerTest {

    private final AtomicLong nanos = new AtomicLong(1_000);
    private final List<Object> events = new ArrayList<>();
    private final EmbeddedChannel channel = Messages.from(CALLER,
            new StreamFramer(1024, Transport.TCP, new SourceAnswerBudget(1, 100, nanos::get), nanos::get),
            new ChannelInboundHandlerAdapter() {
                @Override
                public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
                    events.add(event);
                }
            });

    StreamFramerTest() {
        ChannelFlow.attach(channel, Transport.TCP, CALLER);
    }

    @Test
    void messagesAreCutOutOfTheStreamWhicheverWayItArrives() {
        String invite = Messages.invite("call-1");
        String bye = Messages.bye("call-1", 2);
        String stream = invite + bye;
        channel.writeInbound(Messages.buffer(stream.substring(0, 10)));
        assertNull(channel.readInbound());
        assertEquals(List.of(StreamFramer.Progress.STARTED), events);

        channel.writeInbound(Messages.buffer(stream.substring(10, invite.length() + 5)));
        InboundMessage first = channel.readInbound();
        assertEquals(invite, Messages.text(first.bytes()));
        assertEquals("call-1", first.head().callId());
        assertEquals(Transport.TCP, first.transport());
        assertEquals(CALLER, first.remote());
        assertSame(ChannelFlow.of(channel), first.flow().orElseThrow());
        assertEquals(1_000, first.receivedNanos());
        assertEquals(StreamFramer.Progress.STARTED, events.get(1), "the BYE started with this read");

        nanos.set(2_000);
        channel.writeInbound(Messages.buffer(stream.substring(invite.length() + 5)));
        InboundMessage second = channel.readInbound();
        assertEquals(bye, Messages.text(second.bytes()), "compact Call-ID and Content-Length read");
        assertEquals("call-1", second.head().callId());
        assertEquals(2_000, second.receivedNanos());
        assertEquals(StreamFramer.Progress.NONE, events.get(2));
    }

    @Test
    void aMessageStillArrivingIsReportedAsGoingOn() {
        channel.writeInbound(Messages.buffer("INVITE sip:a@b SIP/2.0\r\n"));
        channel.writeInbound(Messages.buffer("Via: SIP/2.0/TCP x\r\n"));
        assertEquals(List.of(StreamFramer.Progress.STARTED, StreamFramer.Progress.GOING_ON), events);
    }

    @Test
    void aKeepAlivePingIsPongedAndCountsAsNoMessage() {
        channel.writeInbound(Messages.buffer("\r\n\r\n"));
        assertEquals("\r\n", Messages.text((ByteBuf) channel.readOutbound()));
        assertNull(channel.readInbound());
        assertEquals(List.of(StreamFramer.Progress.NONE), events);
    }

    @Test
    void aStreamThatCannotBeFramedIsAnswered400AndClosed() {
        channel.writeInbound(Messages.buffer("INVITE sip:a@b SIP/2.0\r\n"
                + "Via: SIP/2.0/TCP 127.0.0.9:5099;branch=z9hG4bK-1\r\n"
                + "From: <sip:a@b>;tag=1\r\nTo: <sip:c@d>\r\nCall-ID: x\r\nCSeq: 1 INVITE\r\n"
                + "Subject: " + "long ".repeat(20) + "\r\nContent-Length: many\r\n\r\n"));

        String answer = Messages.text((ByteBuf) channel.readOutbound());
        assertTrue(answer.startsWith("SIP/2.0 400 Bad Request\r\n"), answer);
        assertTrue(answer.contains("Call-ID: x\r\n"), answer);
        assertFalse(channel.isOpen(), "nothing after it can be read as SIP");
        assertNull(channel.readInbound());
    }

    @Test
    void aSecondRefusalToTheSameSourceWithinASecondIsNotAnswered() {
        String broken = "OPTIONS sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK-1\r\nFrom: <sip:a@b>;tag=1\r\n"
                + "To: <sip:c@d>\r\nCall-ID: y\r\nCSeq: 1 OPTIONS\r\nSubject: " + "long ".repeat(20) + "\r\n"
                + "Content-Length: 1\r\nl: 2\r\n\r\n";
        channel.writeInbound(Messages.buffer(broken));
        assertTrue(Messages.text((ByteBuf) channel.readOutbound()).startsWith("SIP/2.0 400"));

        SourceAnswerBudget shared = new SourceAnswerBudget(1, 100, nanos::get);
        shared.allow(CALLER.getAddress());
        EmbeddedChannel again = Messages.from(CALLER, new StreamFramer(1024, Transport.TCP, shared, nanos::get));
        ChannelFlow.attach(again, Transport.TCP, CALLER);
        again.writeInbound(Messages.buffer(broken));
        assertNull(again.readOutbound(), "over the source's budget");
        assertFalse(again.isOpen());
    }

    @Test
    void headersWithoutEndBeyondTheLimitCloseTheConnection() {
        channel.writeInbound(Messages.buffer("INVITE sip:a@b SIP/2.0\r\nX: " + "a".repeat(1100)));
        assertFalse(channel.isOpen());
    }
}
