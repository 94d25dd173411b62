package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class QueueDelayTest {

    private static final Duration TARGET = Duration.ofMillis(40);

    private final AtomicLong nanos = new AtomicLong();
    private final QueueDelay delay = new QueueDelay(Duration.ofMillis(100), nanos::get);

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void aStandingQueueIsOverloadAndABurstIsNot() {
        // a burst: some datagrams wait long, but the queue empties within the interval
        delay.record(90);
        delay.record(60);
        delay.record(2);
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET), "a burst that drained");
        // standing: every datagram of the interval waited over the target
        delay.record(45);
        delay.record(80);
        advanceMs(100);
        assertTrue(delay.overloaded(TARGET), "every datagram waited over 40 ms");
        assertEquals(45, delay.standingWaitMs());
        // it ends as soon as one interval's shortest wait is back under the target
        delay.record(41);
        delay.record(3);
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET));
    }

    @Test
    void anIdleQueueOrNoTargetIsNeverOverload() {
        delay.record(500);
        advanceMs(100);
        assertFalse(delay.refuseNewCall(Duration.ZERO, Duration.ofSeconds(1)), "no target set");
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET), "nothing taken in the last interval");
        delay.record(500);
        advanceMs(1_000);
        assertFalse(delay.overloaded(TARGET), "the only wait seen is from long ago");
    }

    @Test
    void theWaitInTheSocketAndTheWaitForAWorkerAddUp() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(
                new InetSocketAddress("127.0.0.1", 0))) {
            socket.setSoTimeout(5_000);
            SocketWaitProbe probe = delay.probe(socket);
            delay.probeSockets();
            byte[] buffer = new byte[64];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            socket.receive(packet);
            assertTrue(probe.read(buffer, packet.getLength()));
            advanceMs(100);
            probe.loopRead(nanos.get(), nanos.get()); // the loop was busy for a whole window, and then
            // from now on nothing is read: each tick finds the probes of the ticks before still in the socket
            int ticks = 30;
            for (int tick = 0; tick < ticks; tick++) {
                advanceMs(10);
                assertEquals(QueueDelay.PROBE_PERIOD, delay.probeSockets(), "the next tick while probes are out");
                delay.record(15);
            }
            assertTrue(delay.standingWaitMs() >= 90 + 15, "socket " + delay.standingWaitMs() + " ms");
            assertTrue(delay.overloaded(TARGET));
            // the listener catches up: the socket is empty at the next ticks and the workers keep up again
            for (int read = 0; read < ticks; read++) {
                socket.receive(packet);
                assertTrue(probe.read(buffer, packet.getLength()));
            }
            for (int tick = 0; tick < 10; tick++) {
                advanceMs(10);
                probe.loopRead(nanos.get(), nanos.get()); // traffic keeps the loop busy
                delay.probeSockets();
                socket.receive(packet);
                probe.read(buffer, packet.getLength());
                delay.record(2);
            }
            advanceMs(10);
            assertEquals(2, delay.standingWaitMs());
            assertFalse(delay.overloaded(TARGET));
            // the loop blocked in its read for 100 ms, and every probe back: the next tick a tenth as often
            advanceMs(100);
            assertEquals(QueueDelay.PROBE_PERIOD, delay.probeSockets(), "a probe went out");
            socket.receive(packet);
            assertTrue(probe.read(buffer, packet.getLength()));
            advanceMs(10);
            assertEquals(Duration.ofMillis(100), delay.probeSockets());
        }
    }

    @Test
    void aBacklogOfFourTargetsAheadRefusesANewCallAndOfOneTargetForASecondAfterAnOverload() {
        assertFalse(delay.refuseNewCall(TARGET, Duration.ofMillis(160)), "a burst's backlog, four targets");
        assertTrue(delay.refuseNewCall(TARGET, Duration.ofMillis(161)), "more: a backlog read in one go");

        delay.record(45);
        advanceMs(100);
        assertTrue(delay.refuseNewCall(TARGET, Duration.ZERO), "the waits stood over the target");
        delay.record(3);
        advanceMs(100);
        assertFalse(delay.refuseNewCall(TARGET, Duration.ofMillis(40)), "the overload is over");
        assertTrue(delay.refuseNewCall(TARGET, Duration.ofMillis(41)),
                "within a second of it, a backlog over one target");
        advanceMs(899);
        assertTrue(delay.refuseNewCall(TARGET, Duration.ofMillis(41)));
        advanceMs(1);
        assertFalse(delay.refuseNewCall(TARGET, Duration.ofMillis(160)), "a second on, four targets again");
    }
}
