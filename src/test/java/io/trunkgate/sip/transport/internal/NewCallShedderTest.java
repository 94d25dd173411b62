package io.trunkgate.sip.transport.internal;

import static io.trunkgate.sip.transport.internal.Messages.CALLER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.NewCallTriage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class NewCallShedderTest {

    private final NewCallTriage triage = new NewCallTriage();
    private final List<String> asked = new ArrayList<>();
    private final EmbeddedChannel channel = new EmbeddedChannel(
            new NewCallShedder(triage, message -> Duration.ofMillis(message.transport() == Transport.UDP ? 40 : 0)));

    private void shedEveryNewCall() {
        triage.deliverTo((source, certificate, callId, callerTag, cseq, waitAhead) -> {
            asked.add(callId + " waited " + waitAhead.toMillis() + " ms");
            return Optional.of("gateway overloaded");
        });
    }

    @Test
    void aShedInviteOverUdpIsAnswered503FromTheSocketToItsSourceAndGoesNoFurther() {
        shedEveryNewCall();
        channel.writeInbound(Messages.received(Messages.invite("call-1"), Transport.UDP, 0));

        assertNull(channel.readInbound());
        DatagramPacket answer = channel.readOutbound();
        assertEquals(CALLER, answer.recipient());
        String text = Messages.text(answer.content());
        assertTrue(text.startsWith("SIP/2.0 503 Service Unavailable\r\n"), text);
        assertTrue(text.contains("gateway overloaded"), text);
        assertEquals(List.of("call-1 waited 40 ms"), asked, "the gate saw what waited ahead of the INVITE");
    }

    @Test
    void aShedInviteOverTcpIsAnsweredOnItsConnectionAndItsAckAbsorbed() {
        shedEveryNewCall();
        channel.writeInbound(Messages.received(Messages.invite("call-2"), Transport.TCP, 0));
        String answer = Messages.text((ByteBuf) channel.readOutbound());
        assertTrue(answer.startsWith("SIP/2.0 503"), answer);

        int tag = answer.indexOf(";tag=", answer.indexOf("\r\nTo: ")) + 5;
        String toTag = answer.substring(tag, answer.indexOf("\r\n", tag));
        String ack = Messages.invite("call-2").replace("INVITE sip", "ACK sip").replace("CSeq: 1 INVITE", "CSeq: 1 ACK")
                .replace("To: <sip:+15551234@gw>", "To: <sip:+15551234@gw>;tag=" + toTag);
        channel.writeInbound(Messages.received(ack, Transport.TCP, 0));
        assertNull(channel.readInbound(), "the ACK of a 503 sent here is absorbed here");
        assertEquals(1, triage.acksAbsorbed());
    }

    @Test
    void whatIsNoNewCallOrIsLetInGoesOn() {
        triage.deliverTo((source, certificate, callId, callerTag, cseq, waitAhead) -> Optional.empty());
        InboundMessage invite = Messages.received(Messages.invite("call-3"), Transport.UDP, 0);
        InboundMessage bye = Messages.received(Messages.bye("call-3", 2), Transport.UDP, 0);
        channel.writeInbound(invite, bye);
        assertSame(invite, channel.readInbound());
        assertSame(bye, channel.readInbound());
        assertNull(channel.readOutbound());
    }
}
