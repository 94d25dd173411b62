package io.trunkgate.sip.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The TCP framer finds message boundaries however the bytes are split and however the headers are written. */
class SipStreamFramerTest {

    private static final String BODY = "v=0\r\ns=-\r\n";

    private final List<String> messages = new ArrayList<>();
    private final List<String> callIds = new ArrayList<>();
    private int pings;
    private final SipStreamFramer.Receiver receiver = new SipStreamFramer.Receiver() {
        @Override
        public void message(byte[] message, SipHead head) {
            messages.add(new String(message, StandardCharsets.ISO_8859_1));
            callIds.add(head.callId());
            head.forEachAnswerLine((data, start, end, to) -> assertSame(message, data, "the head reads its message"));
        }

        @Override
        public void keepAlivePing() {
            pings++;
        }
    };

    private static String request(String callIdHeader, String contentLengthHeader, String body) {
        return "INVITE sip:a@b SIP/2.0\r\nVia: SIP/2.0/TCP h;branch=z9hG4bK1\r\n" + callIdHeader + "\r\n"
                + contentLengthHeader + "\r\n\r\n" + body;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void headerNamesInAnyCaseCompactOrWithSpaceBeforeTheColon() throws Exception {
        List<String> sent = List.of(
                request("Call-ID: one", "Content-Length: " + BODY.length(), BODY),
                request("i: two", "l: " + BODY.length(), BODY),
                request("CALL-ID : three", "content-length :\t" + BODY.length(), BODY),
                request("I:four", "L:" + BODY.length(), BODY));
        SipStreamFramer framer = new SipStreamFramer(65536);

        assertEquals(4, framer.add(bytes(String.join("", sent)), receiver));

        assertEquals(sent, messages);
        assertEquals(List.of("one", "two", "three", "four"), callIds);
        assertFalse(framer.hasPartialMessage());
    }

    @Test
    void messagesSplitAtEveryByteAreReassembled() throws Exception {
        String stream = request("i: x", "l: " + BODY.length(), BODY) + "\r\n\r\n" + request("i: y", "l: 0", "");
        SipStreamFramer framer = new SipStreamFramer(65536);

        for (byte b : bytes(stream)) {
            framer.add(new byte[] {b}, receiver);
        }

        assertEquals(List.of(request("i: x", "l: " + BODY.length(), BODY), request("i: y", "l: 0", "")), messages);
        assertEquals(1, pings, "the double CRLF between the messages");
    }

    @Test
    void aMessageIsPartialFromItsFirstByteUntilItsLastButLineBreaksAloneAreNot() throws Exception {
        SipStreamFramer framer = new SipStreamFramer(65536);
        byte[] message = bytes(request("i: x", "l: " + BODY.length(), BODY));

        framer.add(bytes("\r\n"), receiver);
        assertFalse(framer.hasPartialMessage());
        framer.add(Arrays.copyOf(message, message.length - 1), receiver);
        assertTrue(framer.hasPartialMessage());
        assertArrayEquals(Arrays.copyOf(message, message.length - 1), framer.partialMessage());
        framer.add(new byte[] {message[message.length - 1]}, receiver);
        assertFalse(framer.hasPartialMessage());
        assertEquals(1, messages.size());
    }

    @Test
    void keepAlivePingsBetweenMessagesAreCountedAcrossReads() throws Exception {
        SipStreamFramer framer = new SipStreamFramer(65536);

        framer.add(bytes("\r\n\r\n\r\n"), receiver);
        framer.add(bytes("\r\n"), receiver);

        assertEquals(2, pings);
        assertTrue(messages.isEmpty());
    }

    @Test
    void aContentLengthThatIsNoLengthBreaksTheStream() {
        for (String value : List.of("-1", "twelve", "", "1e3", "99999999999")) {
            SipStreamFramer framer = new SipStreamFramer(65536);
            assertThrows(SipStreamFramer.FramingException.class,
                    () -> framer.add(bytes(request("i: x", "Content-Length: " + value, "")), receiver), value);
        }
        SipStreamFramer framer = new SipStreamFramer(65536);
        assertThrows(SipStreamFramer.FramingException.class,
                () -> framer.add(bytes(request("i: x", "l: 3\r\nContent-Length: 4", "abcd")), receiver));
    }

    @Test
    void messagesLargerThanTheMaximumBreakTheStream() throws Exception {
        SipStreamFramer framer = new SipStreamFramer(1024);
        assertThrows(SipStreamFramer.FramingException.class,
                () -> framer.add(bytes(request("i: x", "l: 2000", "")), receiver), "declared too long");

        SipStreamFramer endless = new SipStreamFramer(1024);
        endless.add(bytes("INVITE sip:a@b SIP/2.0\r\n"), receiver);
        byte[] header = bytes("X-Filler: " + "a".repeat(500) + "\r\n");
        assertThrows(SipStreamFramer.FramingException.class, () -> {
            for (int i = 0; i < 3; i++) {
                endless.add(header, receiver);
            }
        }, "headers that never end");
    }

    @Test
    void aMessageWithoutContentLengthHasNoBodyAndOneWithoutCallIdHasNone() throws Exception {
        SipStreamFramer framer = new SipStreamFramer(65536);

        framer.add(bytes("OPTIONS sip:a@b SIP/2.0\r\nVia: x\r\n\r\nOPTIONS sip:c@d SIP/2.0\r\n\r\n"), receiver);

        assertEquals(List.of("OPTIONS sip:a@b SIP/2.0\r\nVia: x\r\n\r\n", "OPTIONS sip:c@d SIP/2.0\r\n\r\n"), messages);
        assertEquals(Arrays.asList(null, null), callIds);
    }
}
