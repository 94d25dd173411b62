package io.trunkgate.sip.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The 400 to an unparseable request: plain, with the headers RFC 3261 §8.2.6.2 asks for, never an amplifier. */
class BadRequestAnswerTest {

    private static final String REQUEST = "INVITE sip:@@@:::: SIP/2.0\r\n"
            + "v: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bKa\r\n"
            + "Via: SIP/2.0/UDP 192.0.2.9;branch=z9hG4bKb,\r\n SIP/2.0/UDP 192.0.2.10;branch=z9hG4bKc\r\n"
            + "Max-Forwards: 70\r\n"
            + "f: <sip:alice@192.0.2.1>;tag=1\r\n"
            + "To : <sip:bob@192.0.2.2>\r\n"
            + "i: abc@192.0.2.1\r\n"
            + "CSeq: notanumber INVITE\r\n"
            + "Subject: " + "padding ".repeat(20) + "\r\n"
            + "Content-Length: 0\r\n\r\n";

    private static Optional<String> answer(String request) {
        return BadRequestAnswer.to(request.getBytes(StandardCharsets.ISO_8859_1))
                .map(bytes -> new String(bytes, StandardCharsets.ISO_8859_1));
    }

    @Test
    void plainStatusLineAndTheRequestsViasFromToCallIdAndCSeq() {
        String answer = answer(REQUEST).orElseThrow();

        assertTrue(Pattern.matches("SIP/2\\.0 400 Bad Request\r\n"
                + "Via: SIP/2\\.0/UDP 192\\.0\\.2\\.1:5060;branch=z9hG4bKa\r\n"
                + "Via: SIP/2\\.0/UDP 192\\.0\\.2\\.9;branch=z9hG4bKb, "
                + "SIP/2\\.0/UDP 192\\.0\\.2\\.10;branch=z9hG4bKc\r\n"
                + "From: <sip:alice@192\\.0\\.2\\.1>;tag=1\r\n"
                + "To: <sip:bob@192\\.0\\.2\\.2>;tag=\\w+\r\n"
                + "Call-ID: abc@192\\.0\\.2\\.1\r\n"
                + "CSeq: notanumber INVITE\r\n"
                + "Content-Length: 0\r\n\r\n", answer), answer);
    }

    @Test
    void aToTagIsKept() {
        String answer = answer(REQUEST.replace("To : <sip:bob@192.0.2.2>", "t: <sip:bob@192.0.2.2>;TAG=x"))
                .orElseThrow();

        assertTrue(answer.contains("\r\nTo: <sip:bob@192.0.2.2>;TAG=x\r\n"), answer);
    }

    @Test
    void noAnswerToResponsesAcksOrRequestsMissingWhatAnAnswerNeeds() {
        assertEquals(Optional.empty(), answer("SIP/2.0 200 OK" + REQUEST.substring(REQUEST.indexOf("\r\n"))));
        assertEquals(Optional.empty(), answer(REQUEST.replace("INVITE sip:@@@:::: SIP/2.0", "ACK sip:b@h SIP/2.0")));
        for (String header : new String[] {"v: ", "f: ", "To : ", "i: ", "CSeq: "}) {
            String without = REQUEST.replaceAll("(?m)^" + Pattern.quote(header) + "[^\r]*\r\n", "");
            if (header.equals("v: ")) {
                without = without.replaceAll("(?m)^Via: [^\r]*\r\n [^\r]*\r\n", "");
            }
            assertEquals(Optional.empty(), answer(without), "without " + header);
        }
        assertEquals(Optional.empty(), answer(REQUEST.replace("i: abc@", "i: a\u0000bc@")), "a control character");
    }

    @Test
    void neverLargerThanTheRequestNorThan1300Bytes() {
        String small = "INVITE x SIP/2.0\r\nv: a\r\nf: b\r\nt: c\r\ni: d\r\nCSeq: 1 INVITE\r\n\r\n";
        assertEquals(Optional.empty(), answer(small), "longer than the request");

        String hugeVia = REQUEST.replace("v: SIP/2.0/UDP 192.0.2.1:5060", "v: SIP/2.0/UDP " + "x".repeat(1400));
        assertEquals(Optional.empty(), answer(hugeVia), "over 1300 bytes");

        int size = answer(REQUEST).orElseThrow().length();
        assertTrue(size <= REQUEST.length() && size <= BadRequestAnswer.MAX_BYTES, size + " bytes");
    }
}
