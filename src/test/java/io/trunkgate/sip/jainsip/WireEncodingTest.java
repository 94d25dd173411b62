package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Messages {@link LeanMsgParser} reads, and their copies, go on the wire as JAIN-SIP writes them, with fewer copies. */
class WireEncodingTest {

    private static final String LATIN_1_BODY = "SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1\r\n"
            + "From: <sip:a@127.0.0.9>;tag=1\r\nTo: <sip:b@127.0.0.1>;tag=2\r\nCall-ID: x\r\nCSeq: 1 MESSAGE\r\n"
            + "Content-Type: text/plain;charset=ISO-8859-1\r\nContent-Length: 3\r\n\r\nabc";

    private static List<String> messages() {
        List<String> all = new ArrayList<>(LeanMsgParserTest.MESSAGES);
        all.addAll(LeanMsgParserTest.ODD_MESSAGES);
        all.add(LATIN_1_BODY);
        return all;
    }

    @Test
    void aMessageAndItsForwardedCopyEncodeAsJainSipEncodesThem() throws Exception {
        for (String text : messages()) {
            SIPMessage plain = LeanMsgParserTest.parse(new StringMsgParser(), text, new ArrayList<>());
            SIPMessage lean = LeanMsgParserTest.parse(new LeanMsgParser(), text, new ArrayList<>());
            Class<?> leanClass = lean instanceof javax.sip.message.Request ? LeanRequest.class : LeanResponse.class;
            assertInstanceOf(leanClass, lean);
            for (String transport : List.of("UDP", "TCP")) {
                assertArrayEquals(plain.encodeAsBytes(transport), lean.encodeAsBytes(transport), text);
                SIPMessage plainCopy = forwarded(plain);
                SIPMessage leanCopy = forwarded(lean);
                assertInstanceOf(lean.getClass(), leanCopy);
                assertArrayEquals(plainCopy.encodeAsBytes(transport), leanCopy.encodeAsBytes(transport), text);
            }
        }
    }

    @Test
    void encodingACallsMessagesAllocatesLessThanJainSip() throws ParseException {
        List<SIPMessage> plain = new ArrayList<>();
        List<SIPMessage> lean = new ArrayList<>();
        for (String text : LeanMsgParserTest.MESSAGES) {
            plain.add(LeanMsgParserTest.parse(new StringMsgParser(), text, new ArrayList<>()));
            lean.add(LeanMsgParserTest.parse(new LeanMsgParser(), text, new ArrayList<>()));
        }
        long[] bytes = LeanMsgParserTest.leastAllocated(() -> plain.forEach(m -> m.encodeAsBytes("UDP")),
                () -> lean.forEach(m -> m.encodeAsBytes("UDP")));
        assertTrue(bytes[1] < bytes[0] * 0.8, "lean " + bytes[1] + " B, JAIN-SIP's " + bytes[0] + " B");
    }

    /** A copy as the proxy forwards it: cloned, with a Via of its own on top. */
    static SIPMessage forwarded(SIPMessage message) throws Exception {
        SIPMessage copy = (SIPMessage) message.clone();
        Via via = new Via();
        via.setHost("127.0.0.1");
        via.setPort(5060);
        via.setTransport("UDP");
        via.setBranch("z9hG4bK-proxy");
        copy.addFirst(via);
        return copy;
    }
}
