package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import gov.nist.javax.sip.parser.StringMsgParser;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;

/** The dialog table's lifetime rules, on a clock the test drives. */
class DialogTableTest {

    private static final Duration TIMEOUT = Duration.ofMinutes(10);
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final DialogTable table = new DialogTable(TIMEOUT, 2, now::get, record -> { });

    private static Request invite(String callId, String tag) throws Exception {
        String text = "INVITE sip:+1555@127.0.0.1:5060 SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.9:5070;branch=z9hG4bK" + callId + "\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:a@127.0.0.9>;tag=" + tag + "\r\nTo: <sip:+1555@127.0.0.1>\r\n"
                + "Call-ID: " + callId + "\r\nCSeq: 1 INVITE\r\nContact: <sip:a@127.0.0.9:5070>\r\n"
                + "Content-Length: 0\r\n\r\n";
        return (Request) new StringMsgParser().parseSIPMessage(text.getBytes(StandardCharsets.US_ASCII), true, false, null);
    }

    private Dialog open(String callId, String tag) throws Exception {
        return table.open(invite(callId, tag), InetAddress.getByName("127.0.0.9"), 5070, "peer");
    }

    @Test
    void aDialogIsFoundByCallIdAndCallerTagUntilItExpires() throws Exception {
        open("c1", "t1");
        assertTrue(table.find("c1", "t1").isPresent());
        assertFalse(table.find("c1", "other").isPresent(), "another From tag is another dialog");
        now.addAndGet(TIMEOUT.toNanos() + 1);
        assertFalse(table.find("c1", "t1").isPresent(), "an expired dialog relays nothing");
        assertEquals(1, table.size(), "kept until swept");
        table.sweep();
        assertEquals(0, table.size());
    }

    @Test
    void relayingInADialogKeepsItAlive() throws Exception {
        Dialog dialog = open("c2", "t2");
        now.addAndGet(TIMEOUT.toNanos() - 1);
        table.touch(dialog);
        now.addAndGet(TIMEOUT.toNanos() - 1);
        table.sweep();
        assertTrue(table.find("c2", "t2").isPresent());
    }

    @Test
    void theTableIsFullAtItsMaximumUntilADialogEnds() throws Exception {
        Dialog first = open("c3", "t3");
        assertFalse(table.full());
        open("c4", "t4");
        assertTrue(table.full());
        table.remove(first, "bye");
        assertFalse(table.full());
    }

    @Test
    void hostsCompareCanonically() {
        assertEquals(Hop.of("[::1]", 5060), Hop.of("0:0:0:0:0:0:0:1", 5060), "RFC 5118: one IPv6 address, two spellings");
        assertEquals(Hop.of("Carrier.Example.COM", 5060), Hop.of("carrier.example.com", 5060));
        assertNotEquals(Hop.of("127.0.0.1", 5060), Hop.of("127.0.0.1", 5061));
    }

    @Test
    void onlyTheCallersAddressIsTheCallersEnd() throws Exception {
        Dialog dialog = open("c5", "t5");
        assertTrue(dialog.isEnd(InetAddress.getByName("127.0.0.9"), true));
        assertFalse(dialog.isEnd(InetAddress.getByName("127.0.0.8"), true));
        assertFalse(dialog.isEnd(InetAddress.getByName("127.0.0.9"), false), "the caller is not the carrier's end");
        dialog.carrierAttempt(Hop.of("127.0.0.20", 5060), 1);
        assertTrue(dialog.isEnd(InetAddress.getByName("127.0.0.20"), false));
        assertTrue(dialog.mayRelayTo(Hop.of("127.0.0.20", 5060), true));
        assertFalse(dialog.mayRelayTo(Hop.of("127.0.0.21", 5060), true), "a caller's request goes only to the carrier");
        assertTrue(dialog.mayRelayTo(Hop.of("127.0.0.9", 5070), false), "the callee's goes back to the caller");
    }
}
