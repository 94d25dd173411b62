package io.trunkgate.sip.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SipHeadTest {

    /** The message at an offset into a larger buffer, as datagrams arrive. */
    private static SipHead raw(String text) {
        byte[] bytes = ("xx" + text + "yy").getBytes(StandardCharsets.US_ASCII);
        return SipHead.read(bytes, 2, bytes.length - 4);
    }

    @Test
    void aCallIdIsReadInEveryFormAHeaderMayTake() {
        int hash = raw("INVITE sip:a@b SIP/2.0\r\nCall-ID: abc@h\r\n\r\n").callIdHash(0);
        assertEquals(hash, raw("SIP/2.0 180 Ringing\r\nVia: x\r\ncall-id  :abc@h  \r\n\r\n").callIdHash(0));
        assertEquals(hash, raw("BYE sip:a@b SIP/2.0\r\ni: abc@h\r\n\r\n").callIdHash(0));
        assertEquals(hash, raw("ACK sip:a@b SIP/2.0\nI:abc@h\n\n").callIdHash(0));
        assertNotEquals(hash, raw("INVITE sip:a@b SIP/2.0\r\nCall-ID: abd@h\r\n\r\n").callIdHash(0));
        assertEquals("abc@h", raw("BYE sip:a@b SIP/2.0\r\ni:  abc@h \r\n\r\n").callId());
    }

    @Test
    void aHeaderThatOnlyStartsLikeACallIdAndTheBodyAreNotRead() {
        assertEquals(7, raw("INVITE sip:a@b SIP/2.0\r\nIdentity: x\r\nCall-IDx: y\r\n\r\nCall-ID: in-the-body\r\n")
                .callIdHash(7));
        assertEquals(7, raw("\r\n\r\n").callIdHash(7));
        assertNull(raw("INVITE sip:a@b SIP/2.0\r\nIdentity: x\r\n\r\ni: body").callId());
    }

    @Test
    void theRequestMethodIsTheWholeFirstWord() {
        assertTrue(raw("INVITE sip:a@b SIP/2.0\r\n\r\n").isRequest("INVITE"));
        assertFalse(raw("INVITEX sip:a@b SIP/2.0\r\n\r\n").isRequest("INVITE"));
        assertFalse(raw("invite sip:a@b SIP/2.0\r\n\r\n").isRequest("INVITE"), "methods are case-sensitive");
        assertFalse(raw("SIP/2.0 200 OK\r\n\r\n").isRequest("INVITE"));
        assertFalse(raw("ACK").isRequest("ACK"));
    }

    @Test
    void aResponsesStatusIsReadFromItsStatusLineAndAnythingElseHasNone() {
        assertEquals(180, raw("SIP/2.0 180 Ringing\r\nCall-ID: c\r\n\r\n").status());
        assertEquals(200, raw("sip/2.0 200 OK\r\n\r\n").status());
        assertEquals(-1, raw("INVITE sip:a@b SIP/2.0\r\n\r\n").status());
        assertEquals(-1, raw("SIP/2.0 2x0 OK\r\n\r\n").status());
        assertEquals(-1, raw("SIP/2.0 20").status());
        assertEquals(-1, raw("SIP/3.0 200 OK\r\n\r\n").status());
    }

    @Test
    void aRequestRoutesOnlyToAddressesWhenItsRequestUriAndEveryRouteNameAnAddress() {
        assertTrue(raw("BYE sip:+1555@192.0.2.7:5070;transport=udp SIP/2.0\r\nTo: <sip:a@b>;tag=1\r\n\r\n")
                .routesOnlyToAddresses());
        assertTrue(raw("BYE sip:u;x=y@[2001:db8::1]:5060 SIP/2.0\r\n"
                + "Route: <sip:192.0.2.1;lr>, \"x\" <sips:10.0.0.1:5061;lr>"
                + "\r\nroute :<sip:gw@127.0.0.1;lr>\r\nRecord-Route: <sip:carrier.example;lr>\r\n\r\n")
                .routesOnlyToAddresses(), "user parts may hold ; and ?; Record-Route is not a Route");
        assertFalse(raw("BYE sip:+1555@carrier.example SIP/2.0\r\n\r\n").routesOnlyToAddresses());
        assertFalse(raw("BYE sip:192.0.2.7 SIP/2.0\r\nRoute: <sip:192.0.2.1;lr>,<sip:proxy.example;lr>\r\n\r\n")
                .routesOnlyToAddresses(), "the second route");
        assertFalse(raw("BYE sip:192.0.2.7 SIP/2.0\r\nRoute: sip:192.0.2.1\r\n\r\n").routesOnlyToAddresses(),
                "a route this cannot read");
        assertFalse(raw("BYE sip:192.0.2.7;maddr=proxy.example SIP/2.0\r\n\r\n").routesOnlyToAddresses());
        assertFalse(raw("BYE tel:+1555 SIP/2.0\r\n\r\n").routesOnlyToAddresses());
        assertFalse(raw("BYE sip:[::1 SIP/2.0\r\n\r\n").routesOnlyToAddresses());
        assertFalse(raw("BYE sip:192.0.2.7\r\n\r\n").routesOnlyToAddresses(), "no version: not read");
        assertFalse(raw("BYE sip:192.0.2.777 SIP/2.0\r\n\r\n").routesOnlyToAddresses());
    }

    @Test
    void theToTagIsTheHeadersParameterNotTheUris() {
        assertEquals("", raw("INVITE sip:a@b SIP/2.0\r\nTo: <sip:a@b;tag=uri>\r\n\r\n").toTag());
        assertEquals("x1", raw("BYE sip:a@b SIP/2.0\r\nTo: <sip:a@b;tag=uri>;tag=x1\r\n\r\n").toTag());
        assertEquals("x2", raw("BYE sip:a@b SIP/2.0\r\nt: sip:a@b ; TAG = x2;other\r\n\r\n").toTag());
        assertEquals("", raw("INVITE sip:a@b SIP/2.0\r\nTo: \"tag=no\" <sip:a@b>;tagged=1\r\n\r\n").toTag());
        assertNull(raw("INVITE sip:a@b SIP/2.0\r\nTopic: x\r\n\r\n").toTag());
    }

    @Test
    void theLinesAnAnswerCopiesAreReadWholeFoldedLinesIncludedAndNothingOfTheBody() {
        SipHead head = raw("INVITE sip:a@b SIP/2.0\r\nVia: v1,\r\n v2\r\nSubject: one\r\n two\r\n"
                + "t: <sip:a@b>\r\nVia : v3\n\r\nVia: body\r\n");
        List<String> lines = new ArrayList<>();
        head.forEachAnswerLine((data, start, end, to) ->
                lines.add((to ? "to " : "") + new String(data, start, end - start, StandardCharsets.US_ASCII)));
        assertEquals(List.of("Via: v1,\r\n v2", "to t: <sip:a@b>", "Via : v3"), lines);
    }

    @Test
    void contentLengthIsReadInEveryFormAndABadOrConflictingOneIsSaidSo() {
        assertEquals(12, raw("SIP/2.0 200 OK\r\nl : 12\r\n\r\n").contentLength());
        assertEquals(0, raw("SIP/2.0 200 OK\r\n\r\n").contentLength());
        assertNull(raw("SIP/2.0 200 OK\r\nContent-Length: 4\r\ncontent-length: 4\r\n\r\n").contentLengthProblem());
        assertEquals("two different Content-Length values",
                raw("SIP/2.0 200 OK\r\nContent-Length: 4\r\nl: 5\r\n\r\n").contentLengthProblem());
        assertEquals("Content-Length \"-1\" is not a length",
                raw("SIP/2.0 200 OK\r\nContent-Length: -1\r\n\r\n").contentLengthProblem());
    }

    @Test
    void theFromTagAndWhetherAResponseCanBeBuiltAreReadFromTheSamePass() {
        SipHead invite = raw("INVITE sip:a@b SIP/2.0\r\nv: SIP/2.0/UDP h;branch=z9hG4bK1\r\n"
                + "f: <sip:c@d>;tag=a1\r\nTo: <sip:a@b>\r\ni: c1\r\nCSeq: 1 INVITE\r\n\r\n");
        assertEquals("a1", invite.fromTag());
        assertTrue(invite.isNewInvite());
        assertTrue(invite.answerable());
        assertFalse(raw("INVITE sip:a@b SIP/2.0\r\nf: <sip:c@d>\r\ni: c1\r\nCSeq: 1 INVITE\r\n\r\n")
                .answerable(), "no Via");
    }

    @Test
    void theCseqNumberIsTheFirstCseqsAndMinusOneWhenItIsNotANumber() {
        String head = "INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/UDP h;branch=z9hG4bK1\r\ni: c1\r\n";
        assertEquals(42, raw(head + "CSeq:  42 INVITE\r\nCSeq: 7 INVITE\r\n\r\n").cseq());
        assertEquals(2147483647L, raw(head + "CSeq: 2147483647 INVITE\r\n\r\n").cseq());
        assertEquals(-1, raw(head + "CSeq: 2147483648 INVITE\r\n\r\n").cseq(), "2^31 and over");
        assertEquals(-1, raw(head + "CSeq: 4x INVITE\r\n\r\n").cseq());
        assertEquals(-1, raw(head + "\r\n").cseq(), "none");
    }
}
