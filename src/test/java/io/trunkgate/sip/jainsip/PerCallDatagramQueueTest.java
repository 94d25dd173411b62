package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.sip.wire.SipHead;
import io.trunkgate.testing.LogCapture;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PerCallDatagramQueueTest {

    private static final InetSocketAddress SENDER = new InetSocketAddress("127.0.0.1", 5070);

    private final AtomicLong now = new AtomicLong(10_000);

    private PerCallDatagramQueue queue(int workers, long maxAgeMs) {
        return new PerCallDatagramQueue(workers, maxAgeMs, now::get, waitedMs -> { });
    }

    private static DatagramPacket datagram(String text) {
        byte[] bytes = ("xx" + text).getBytes(StandardCharsets.US_ASCII);
        // An offset into a larger buffer, as JAIN-SIP's receive buffers are.
        return new DatagramPacket(bytes, 2, bytes.length - 2, SENDER);
    }

    private static SipHead head(String text) {
        DatagramPacket datagram = datagram(text);
        return SipHead.read(datagram.getData(), datagram.getOffset(), datagram.getLength());
    }

    private DatagramQueuedMessageDispatch received(String text, long waitedMs) {
        return new PerCallDatagramQueue.Received(datagram(text), now.get() - waitedMs, head(text));
    }

    @Test
    void everyMessageOfACallGoesToOneLaneWhateverFormItsCallIdTakes() {
        PerCallDatagramQueue queue = queue(16, 0);
        int lane = queue.lane(head("INVITE sip:a@b SIP/2.0\r\nCall-ID: abc@h\r\n\r\n"), SENDER);
        assertEquals(lane, queue.lane(head("SIP/2.0 180 Ringing\r\nVia: x\r\ncall-id  :abc@h  \r\n\r\n"), SENDER));
        assertEquals(lane, queue.lane(head("ACK sip:a@b SIP/2.0\nI:abc@h\n\n"), SENDER));
        assertEquals(Math.floorMod(SENDER.hashCode(), 16), queue.lane(head("\r\n\r\n"), SENDER), "junk: by its sender");
    }

    @Test
    void datagramsOfOneCallComeOutOfOneLaneInOrderAndStaleOnesAreDropped() throws Exception {
        PerCallDatagramQueue queue = queue(1, 100);
        DatagramQueuedMessageDispatch stale = received("SIP/2.0 100 Trying\r\nCall-ID: c1\r\n\r\n", 150);
        DatagramQueuedMessageDispatch ringing = received("SIP/2.0 180 Ringing\r\nCall-ID: c1\r\n\r\n", 10);
        DatagramQueuedMessageDispatch answer = received("SIP/2.0 200 OK\r\nCall-ID: c1\r\n\r\n", 5);
        queue.offer(stale);
        queue.offer(ringing);
        queue.offer(answer);
        assertSame(ringing, queue.take());
        assertSame(answer, queue.take());
        assertEquals(1, queue.dropped());
        assertTrue(queue.isEmpty());
    }

    @Test
    void aNewInviteIsDroppedOnceItsCallerHasSentItAgainOtherRequestsWaitLonger() throws Exception {
        PerCallDatagramQueue queue = queue(1, 2_000);
        DatagramQueuedMessageDispatch oldInvite = received(
                "INVITE sip:a@b SIP/2.0\r\nCall-ID: c2\r\nTo: <sip:a@b>\r\n\r\n", 600);
        DatagramQueuedMessageDispatch reInvite = received(
                "INVITE sip:a@b SIP/2.0\r\nCall-ID: c2\r\nTo: <sip:a@b>;tag=1\r\n\r\n", 600);
        DatagramQueuedMessageDispatch bye = received("BYE sip:a@b SIP/2.0\r\nCall-ID: c2\r\nTo: <sip:a@b>;tag=1\r\n\r\n",
                1_500);
        DatagramQueuedMessageDispatch newInvite = received(
                "INVITE sip:a@b SIP/2.0\r\nCall-ID: c3\r\nTo: <sip:a@b>\r\n\r\n", 400);
        queue.offer(oldInvite);
        queue.offer(reInvite);
        queue.offer(bye);
        queue.offer(newInvite);
        assertSame(reInvite, queue.take(), "only a new INVITE may have been shed as it was sent again");
        assertSame(bye, queue.take());
        assertSame(newInvite, queue.take());
        assertEquals(1, queue.dropped());
    }

    @Test
    void aDropIsLoggedWithItsSenderButTheWarmUpsOwnDatagramsAreOnlyCounted() throws Exception {
        PerCallDatagramQueue queue = queue(1, 100);
        String stale = "SIP/2.0 100 Trying\r\nCall-ID: c4\r\n\r\n";
        byte[] bytes = stale.getBytes(StandardCharsets.US_ASCII);
        try (LogCapture log = LogCapture.start()) {
            queue.offer(new PerCallDatagramQueue.Received(new DatagramPacket(bytes, bytes.length,
                    new InetSocketAddress(WarmUpSettings.ADDRESS, 5070)), now.get() - 150, head(stale)));
            queue.offer(received(stale, 150));
            DatagramQueuedMessageDispatch fresh = received("SIP/2.0 180 Ringing\r\nCall-ID: c4\r\n\r\n", 1);
            queue.offer(fresh);
            assertSame(fresh, queue.take());
            assertEquals(2, queue.dropped());
            List<String> drops = log.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains("dropped unread")).toList();
            assertEquals(1, drops.size(), drops.toString());
            assertTrue(drops.get(0).startsWith("datagram from /127.0.0.1:5070 dropped unread"), drops.toString());
        }
    }

    @Test
    void theWaitAheadOfADatagramIsHowLongTheOldestDatagramOfItsLaneHasWaited() throws Exception {
        PerCallDatagramQueue queue = queue(2, 0);
        SipHead invite = head("INVITE sip:a@b SIP/2.0\r\nCall-ID: c1\r\n\r\n");
        assertEquals(Duration.ZERO, queue.waitAhead(invite, SENDER));
        queue.offer(received("SIP/2.0 100 Trying\r\nCall-ID: c1\r\n\r\n", 30));
        queue.offer(received("SIP/2.0 180 Ringing\r\nCall-ID: c1\r\n\r\n", 10));
        assertEquals(Duration.ofMillis(30), queue.waitAhead(invite, SENDER));
        now.addAndGet(5);
        assertEquals(Duration.ofMillis(35), queue.waitAhead(invite, SENDER));
        SipHead otherCall = head("INVITE sip:a@b SIP/2.0\r\nCall-ID: c2\r\n\r\n");
        for (int i = 3; queue.lane(otherCall, SENDER) == queue.lane(invite, SENDER); i++) {
            otherCall = head("INVITE sip:a@b SIP/2.0\r\nCall-ID: c" + i + "\r\n\r\n");
        }
        assertEquals(Duration.ZERO, queue.waitAhead(otherCall, SENDER), "another lane waits for nothing");
    }

    @Test
    void theQueueIsIdleOnlyWhenNoWorkerHasADatagramToHandle() throws Exception {
        PerCallDatagramQueue queue = queue(1, 100);
        assertTrue(queue.idle());
        queue.offer(received("SIP/2.0 180 Ringing\r\nCall-ID: c1\r\n\r\n", 0));
        assertFalse(queue.idle(), "queued");
        DatagramQueuedMessageDispatch taken = queue.take();
        assertFalse(queue.idle(), "taken, and still being handled");
        queue.offer(received("SIP/2.0 100 Trying\r\nCall-ID: c1\r\n\r\n", 150));
        assertNull(queue.poll(0, TimeUnit.MILLISECONDS), "a stale datagram is dropped, not handled");
        assertTrue(queue.idle(), "the worker came back for more: the first is handled, the stale one dropped");
        assertEquals("SIP/2.0 180 Ringing", new String(taken.packet.getData(), taken.packet.getOffset(), 19,
                StandardCharsets.US_ASCII));
    }
}
