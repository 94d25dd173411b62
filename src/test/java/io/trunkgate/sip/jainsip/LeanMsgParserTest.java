package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.MessageParser;
import gov.nist.javax.sip.parser.ParseExceptionListener;
import gov.nist.javax.sip.parser.ParserFactory;
import gov.nist.javax.sip.parser.StringMsgParser;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** {@link LeanMsgParser} parses as JAIN-SIP's own parser does (into its own message classes), allocating less. */
class LeanMsgParserTest {

    private static final String SDP = "v=0\r\no=- 1 1 IN IP4 127.0.0.9\r\ns=-\r\nc=IN IP4 127.0.0.9\r\nt=0 0\r\n"
            + "m=audio 6000 RTP/AVP 0\r\n";
    /** The messages of a call as SIPp writes them, and forms a call may use: compact names, odd case, blanks. */
    static final List<String> MESSAGES = List.of(
            "INVITE sip:+15551234@127.0.0.1:5060 SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1-0;rport\r\n"
                    + "From: \"Alice\" <sip:alice@127.0.0.9:5070>;tag=1\r\n"
                    + "To: <sip:+15551234@127.0.0.1:5060>\r\nCall-ID: 1-4711@127.0.0.9\r\nCSeq: 1 INVITE\r\n"
                    + "Contact: <sip:alice@127.0.0.9:5070;transport=udp>\r\nMax-Forwards: 70\r\n"
                    + "Subject: Performance Test\r\nContent-Type: application/sdp\r\n"
                    + "Content-Length: " + SDP.length() + "\r\n\r\n" + SDP,
            "SIP/2.0 180 Ringing\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.1:5060;branch=z9hG4bK77\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1-0;rport=5070;received=127.0.0.9\r\n"
                    + "Record-Route: <sip:127.0.0.1:5060;transport=udp;lr>\r\n"
                    + "From: \"Alice\" <sip:alice@127.0.0.9:5070>;tag=1\r\n"
                    + "To: <sip:+15551234@127.0.0.1:5060>;tag=99\r\nCall-ID: 1-4711@127.0.0.9\r\n"
                    + "CSeq: 1 INVITE\r\nContact: <sip:127.0.0.2:5080;transport=UDP>\r\nContent-Length: 0\r\n\r\n",
            "BYE sip:127.0.0.2:5080;transport=UDP SIP/2.0\r\n"
                    + "v: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1-2\r\n"
                    + "route: <sip:127.0.0.1:5060;transport=udp;lr>\r\n"
                    + "f: <sip:alice@127.0.0.9:5070>;tag=1\r\nt: <sip:+15551234@127.0.0.1:5060>;tag=99\r\n"
                    + "i: 1-4711@127.0.0.9\r\nCSEQ : 2 BYE\r\nm: <sip:alice@127.0.0.9:5070>\r\n"
                    + "max-forwards: 70\r\nX-Extra: kept as it is\r\nl: 0\r\n\r\n",
            "ACK sip:127.0.0.2:5080 SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1-1\r\n"
                    + "From: <sip:alice@127.0.0.9:5070>;tag=1\r\nTo: <sip:+15551234@127.0.0.1:5060>;tag=99\r\n"
                    + "Call-ID: 1-4711@127.0.0.9\r\nCSeq: 1 ACK\r\nMax-Forwards: -5\r\nContent-Length: 0\r\n\r\n");
    /** Forms JAIN-SIP's line reading copes with: leading line ends, folded lines, LF alone, no empty line at the end. */
    static final List<String> ODD_MESSAGES = List.of(
            "\r\n\r\nOPTIONS sip:127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-o\r\n"
                    + "From: \"Zo\u00eb\" <sip:z@127.0.0.9>;tag=5\r\nTo: <sip:127.0.0.1>\r\nCall-ID: o1\r\n"
                    + "CSeq: 7 OPTIONS\r\nSubject: a long\r\n  folded subject\r\n\tand more  \r\n"
                    + "X-Long: " + "a".repeat(3000) + "\r\nContent-Length: 0 \t\r\n\r\n",
            "SIP/2.0 200 OK\nVia: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1\nFrom: <sip:a@127.0.0.9>;tag=1\n"
                    + "To: <sip:b@127.0.0.1>;tag=2\nCall-ID: x\nCSeq: 1 BYE\nContent-Length: 0",
            "SIP/2.0 180 Ringing\r\nVia: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK-1\r\nFrom: <sip:a@127.0.0.9>;tag=1\r\n"
                    + "To: <sip:b@127.0.0.1>;tag=2\r\nCall-ID: y\r\nCSeq: 1 INVITE\r\nContact: <sip:b@127.0.0.1\r\n"
                    + "Content-Length: 4\r\n   \r\nbody");

    @Test
    void eachHeaderOfACallGetsTheParserJainSipsFactoryGivesIt() throws ParseException {
        for (LeanMsgParser.Known known : LeanMsgParser.KNOWN) {
            String name = known.name();
            for (String line : List.of(name + ": x\n", name.toUpperCase(Locale.ROOT) + ":x\n",
                    name.toLowerCase(Locale.ROOT) + " : x\n")) {
                assertSame(ParserFactory.createParser(line).getClass(), LeanMsgParser.parserFor(line).getClass(),
                        line);
            }
        }
        assertSame(ParserFactory.createParser("X-Via: x\n").getClass(),
                LeanMsgParser.parserFor("X-Via: x\n").getClass());
    }

    @Test
    void messagesParseAsJainSipParsesThem() throws ParseException {
        List<String> all = new ArrayList<>(MESSAGES);
        all.addAll(ODD_MESSAGES);
        for (String text : all) {
            List<String> plainFailures = new ArrayList<>();
            List<String> leanFailures = new ArrayList<>();
            SIPMessage plain = parse(new StringMsgParser(), text, plainFailures);
            SIPMessage lean = parse(new LeanMsgParser(), text, leanFailures);
            assertNotNull(lean, text);
            assertEquals(plain.encode(), lean.encode(), text);
            assertEquals(headers(plain), headers(lean), text);
            assertArrayEquals(plain.getRawContent(), lean.getRawContent(), text);
            assertEquals(plainFailures, leanFailures, text);
            assertEquals(plain.getSize(), lean.getSize(), text);
        }
    }

    @Test
    void aMessageJainSipRefusesIsRefusedTheSameWay() {
        List<String> refused = List.of(
                "INVITE sip:a@127.0.0.1 SIP/2.0\r\n via: SIP/2.0/UDP 127.0.0.9\r\n\r\n",
                "INVITE sip:a@127.0.0.1 SIP/2.0\r\nVia: SIP;2.0/UDP 127.0.0.9:5070;branch=z9hG4bK1\r\n\r\n",
                "SIP/2.0 200 OK\r\nCall-ID: z\r\nContent-Length: 0\r\n\r\nextra");
        for (String text : refused) {
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            ParseExceptionListener rethrow = (ex, message, headerClass, header, raw) -> {
                throw ex;
            };
            String plain = refusal(() -> new StringMsgParser().parseSIPMessage(bytes, true, true, rethrow));
            String lean = refusal(() -> new LeanMsgParser().parseSIPMessage(bytes, true, true, rethrow));
            assertEquals(plain, lean, text);
            assertNotNull(plain, text);
        }
    }

    private interface Parse {
        SIPMessage run() throws ParseException;
    }

    /** The refusal's message without the identity of the char array JAIN-SIP's lexer prefixes it with. */
    private static String refusal(Parse parse) {
        try {
            parse.run();
            return null;
        } catch (ParseException e) {
            return ReceivedMessageParser.parserMessage(e) + " at " + e.getErrorOffset();
        }
    }

    @Test
    void parsingACallAllocatesLessThanJainSipsParser() {
        MessageParser plain = new StringMsgParser();
        MessageParser lean = new LeanMsgParser();
        long[] bytes = leastAllocated(() -> parseCall(plain), () -> parseCall(lean));
        // Via and the address headers read without JAIN-SIP's lexer: about 60% of what its parser allocates
        assertTrue(bytes[1] < bytes[0] * 0.75, "lean " + bytes[1] + " B, JAIN-SIP's " + bytes[0] + " B");
    }

    private static void parseCall(MessageParser parser) {
        try {
            for (String text : MESSAGES) {
                parse(parser, text, new ArrayList<>());
            }
        } catch (ParseException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * The bytes {@code first} and {@code second}, each run 500 times, allocate on this thread: the least of 8 rounds
     * taken in turn, so what they allocate and not what a compilation in between did.
     */
    static long[] leastAllocated(Runnable first, Runnable second) {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] least = {Long.MAX_VALUE, Long.MAX_VALUE};
        Runnable[] work = {first, second};
        for (int round = 0; round < 8; round++) {
            for (int w = 0; w < 2; w++) {
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 500; i++) {
                    work[w].run();
                }
                least[w] = Math.min(least[w], threads.getCurrentThreadAllocatedBytes() - before);
            }
        }
        return least;
    }

    /** The message's headers in order, compared as parsed (a message's own equals compares its class too). */
    private static List<Object> headers(SIPMessage message) {
        List<Object> headers = new ArrayList<>();
        message.getHeaders().forEachRemaining(headers::add);
        return headers;
    }

    static SIPMessage parse(MessageParser parser, String text, List<String> failures) throws ParseException {
        ParseExceptionListener listener = (ex, message, headerClass, header, raw) -> {
            failures.add(headerClass.getSimpleName() + " " + header);
            message.addUnparsed(header);
        };
        return parser.parseSIPMessage(text.getBytes(StandardCharsets.UTF_8), true, false, listener);
    }
}
