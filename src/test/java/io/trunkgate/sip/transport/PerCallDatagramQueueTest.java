package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import java.net.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PerCallDatagramQueueTest {

    private static final InetSocketAddress SENDER = new InetSocketAddress("127.0.0.1", 5070);

    private static DatagramPacket datagram(String text) {
        byte[] bytes = ("xx" + text).getBytes(StandardCharsets.US_ASCII);
        // An offset into a larger buffer, as JAIN-SIP's receive buffers are.
        return new DatagramPacket(bytes, 2, bytes.length - 2, SENDER);
    }

    @Test
    void aCallIdIsReadInEveryFormAHeaderMayTake() {
        int hash = PerCallDatagramQueue.CallIdHash.of(datagram("INVITE sip:a@b SIP/2.0\r\nCall-ID: abc@h\r\n\r\n"));
        assertEquals(hash, PerCallDatagramQueue.CallIdHash.of(
                datagram("SIP/2.0 180 Ringing\r\nVia: x\r\ncall-id  :abc@h  \r\n\r\n")));
        assertEquals(hash, PerCallDatagramQueue.CallIdHash.of(datagram("BYE sip:a@b SIP/2.0\r\ni: abc@h\r\n\r\n")));
        assertEquals(hash, PerCallDatagramQueue.CallIdHash.of(datagram("ACK sip:a@b SIP/2.0\nI:abc@h\n\n")));
        assertNotEquals(hash, PerCallDatagramQueue.CallIdHash.of(
                datagram("INVITE sip:a@b SIP/2.0\r\nCall-ID: abd@h\r\n\r\n")));
    }

    @Test
    void aHeaderThatOnlyStartsLikeACallIdAndTheBodyAreNotRead() {
        int bySender = SENDER.hashCode();
        assertEquals(bySender, PerCallDatagramQueue.CallIdHash.of(
                datagram("INVITE sip:a@b SIP/2.0\r\nIdentity: x\r\nCall-IDx: y\r\n\r\nCall-ID: in-the-body\r\n")));
        assertEquals(bySender, PerCallDatagramQueue.CallIdHash.of(datagram("\r\n\r\n")));
    }

    @Test
    void datagramsOfOneCallComeOutOfOneLaneInOrderAndStaleOnesAreDropped() throws Exception {
        AtomicLong now = new AtomicLong(1_000);
        PerCallDatagramQueue queue = new PerCallDatagramQueue(1, 100, now::get, new QueueDelay(QueueDelay.INTERVAL, System::nanoTime));
        DatagramQueuedMessageDispatch stale = new DatagramQueuedMessageDispatch(
                datagram("SIP/2.0 100 Trying\r\nCall-ID: c1\r\n\r\n"), 850);
        DatagramQueuedMessageDispatch ringing = new DatagramQueuedMessageDispatch(
                datagram("SIP/2.0 180 Ringing\r\nCall-ID: c1\r\n\r\n"), 990);
        DatagramQueuedMessageDispatch answer = new DatagramQueuedMessageDispatch(
                datagram("SIP/2.0 200 OK\r\nCall-ID: c1\r\n\r\n"), 995);
        queue.offer(stale);
        queue.offer(ringing);
        queue.offer(answer);
        assertSame(ringing, queue.take());
        assertSame(answer, queue.take());
        assertEquals(1, queue.dropped());
        assertEquals(true, queue.isEmpty());
    }
}
