package io.trunkgate.sip.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.sip.jainsip.JainSip;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sip.header.CSeqHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;

class NewCallTriageTest {

    private static final InetSocketAddress CALLER = new InetSocketAddress("127.0.0.9", 5099);
    private static final String NEW_INVITE = """
            INVITE sip:+15551234@gw SIP/2.0\r
            v: SIP/2.0/UDP 127.0.0.9:5099;branch=z9hG4bK-1;rport\r
            Via: SIP/2.0/UDP 10.0.0.1:5060;branch=z9hG4bK-0\r
            Max-Forwards: 70\r
            f: "Alice" <sip:alice@example.com>;tag=a1\r
            t: <sip:+15551234@gw>\r
            i: call-1@example.com\r
            CSeq: 7 INVITE\r
            Contact: <sip:alice@127.0.0.9:5099>\r
            Content-Type: application/sdp\r
            Content-Length: 4\r
            \r
            v=0
            """;

    private final NewCallTriage triage = new NewCallTriage();
    private final List<String> asked = new ArrayList<>();
    private final List<byte[]> answers = new ArrayList<>();

    private boolean handled(String message) {
        byte[] bytes = ("junk" + message).getBytes(StandardCharsets.US_ASCII);
        return triage.handled(SipHead.read(bytes, 4, bytes.length - 4), CALLER, Optional.empty(), () -> Duration.ofMillis(7),
                answers::add);
    }

    private void shedEverything() {
        triage.deliverTo((source, certificate, callId, callerTag, cseq, waitAhead) -> {
            asked.add(source.getHostAddress() + " " + callId + " " + callerTag + " " + waitAhead.toMillis() + " ms");
            return Optional.of("gateway \"overloaded\"");
        });
    }

    @Test
    void aShedInviteIsAnswered503WithWhatAResponseMustCopyAndATaggedTo() throws Exception {
        shedEverything();
        assertTrue(handled(NEW_INVITE));
        assertEquals(List.of("127.0.0.9 call-1@example.com a1 7 ms"), asked);
        assertEquals(1, answers.size());

        Response answer = JainSip.factory().createMessageFactory()
                .createResponse(new String(answers.get(0), StandardCharsets.US_ASCII));
        assertEquals(503, answer.getStatusCode());
        List<String> branches = new ArrayList<>();
        answer.getHeaders(ViaHeader.NAME).forEachRemaining(via -> branches.add(((ViaHeader) via).getBranch()));
        assertEquals(List.of("z9hG4bK-1", "z9hG4bK-0"), branches, "every Via, in order");
        assertEquals("a1", ((FromHeader) answer.getHeader(FromHeader.NAME)).getTag());
        ToHeader to = (ToHeader) answer.getHeader(ToHeader.NAME);
        assertEquals("sip:+15551234@gw", to.getAddress().getURI().toString());
        assertTrue(to.getTag().startsWith(NewCallTriage.SHED_TAG_PREFIX), to.toString());
        assertEquals("call-1@example.com", ((CallIdHeader) answer.getHeader(CallIdHeader.NAME)).getCallId());
        CSeqHeader cseq = (CSeqHeader) answer.getHeader(CSeqHeader.NAME);
        assertEquals(7, cseq.getSeqNumber());
        assertEquals("INVITE", cseq.getMethod());
        assertEquals(1, ((RetryAfterHeader) answer.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
        assertEquals("gateway overloaded", ((ReasonHeader) answer.getHeader(ReasonHeader.NAME)).getText());
        assertEquals(0, answer.getContentLength().getContentLength());
        assertEquals(null, answer.getHeader("Contact"), "nothing else of the request is copied");
    }

    @Test
    void theAckOfAShedCallIsAbsorbedAndNoOtherAck() {
        shedEverything();
        String ack = "ACK sip:+15551234@gw SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.9:5099;branch=z9hG4bK-1\r\n"
                + "To: <sip:+15551234@gw>;tag=%s\r\nCall-ID: call-1@example.com\r\nCSeq: 7 ACK\r\n\r\n";
        assertTrue(handled(ack.formatted(NewCallTriage.SHED_TAG_PREFIX + "5f3a")));
        assertFalse(handled(ack.formatted("b7")), "the ACK of a call's 2xx or of another 4xx-6xx goes on");
        assertEquals(1, triage.acksAbsorbed());
        assertEquals(List.of(), asked);
    }

    @Test
    void everythingButANewInviteGoesOnWithoutAskingTheGate() {
        shedEverything();
        assertFalse(handled(NEW_INVITE.replace("t: <sip:+15551234@gw>", "t: <sip:+15551234@gw>;tag=b7")),
                "a re-INVITE");
        assertFalse(handled(NEW_INVITE.replace("INVITE sip:", "OPTIONS sip:")));
        assertFalse(handled(NEW_INVITE.replace("INVITE sip:+15551234@gw SIP/2.0", "SIP/2.0 200 OK")));
        assertFalse(handled(NEW_INVITE.replace("CSeq: 7 INVITE\r\n", "")), "left to the parser, which refuses it");
        assertFalse(handled(NEW_INVITE.replace("t: <sip:+15551234@gw>\r\n", "")), "no To: left to the parser");
        assertEquals(List.of(), asked);
        assertEquals(List.of(), answers);
    }

    @Test
    void anInviteTheGateLetsInGoesOnAndSoDoesEverythingBeforeThereIsAGate() {
        assertFalse(handled(NEW_INVITE), "no gate yet");
        triage.deliverTo((source, certificate, callId, callerTag, cseq, waitAhead) -> {
            asked.add(callId);
            return Optional.empty();
        });
        assertFalse(handled(NEW_INVITE));
        assertEquals(List.of("call-1@example.com"), asked);
        assertEquals(List.of(), answers);
    }
}
