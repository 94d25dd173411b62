package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SocketWaitProbeTest {

    private final AtomicLong nanos = new AtomicLong();
    private final DatagramSocket socket;
    private final SocketWaitProbe probe;

    SocketWaitProbeTest() throws Exception {
        socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        socket.setSoTimeout(5_000);
        probe = new SocketWaitProbe(socket, nanos::get);
    }

    @AfterEach
    void close() {
        socket.close();
    }

    private void atMs(long ms) {
        nanos.set(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private long waitMs() {
        return TimeUnit.NANOSECONDS.toMillis(probe.waitNanos());
    }

    /** Reads the next datagram from the socket and tells the probe, as the listener's receive loop does. */
    private boolean readNext() throws Exception {
        byte[] buffer = new byte[2048];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        return probe.read(buffer, packet.getLength());
    }

    @Test
    void theOldestProbeNotYetReadIsHowLongTheSocketHasHeldItsDatagrams() throws Exception {
        loopReadMs(100, 100); // a loop busy for a whole window: probed on every tick
        atMs(100);
        probe.send();
        assertTrue(readNext(), "the probe arrives on the listener's own socket");
        assertEquals(0, waitMs(), "every probe read");
        atMs(110);
        probe.send();
        atMs(120);
        probe.send();
        atMs(250);
        assertEquals(140, waitMs(), "the probe sent at 110 ms is still unread");
        assertTrue(readNext());
        assertEquals(130, waitMs(), "now the one sent at 120 ms is the oldest unread");
        assertTrue(readNext());
        assertEquals(0, waitMs());
    }

    private void loopReadMs(long startMs, long endMs) {
        probe.loopRead(TimeUnit.MILLISECONDS.toNanos(startMs), TimeUnit.MILLISECONDS.toNanos(endMs));
    }

    /**
     * Ticks every 10 ms from {@code fromMs} to {@code toMs} (exclusive), the loop reading each probe sent; the number
     * of probes that went out.
     */
    private int tick(long fromMs, long toMs) throws Exception {
        int sent = 0;
        for (long ms = fromMs; ms < toMs; ms += 10) {
            atMs(ms);
            long before = probe.sent();
            probe.send();
            if (probe.sent() > before) {
                assertTrue(readNext(), "the probe sent at " + ms + " ms");
                sent++;
            }
        }
        return sent;
    }

    @Test
    void aLoopMostlyBlockedInItsReadIsProbedEveryTenthTick() throws Exception {
        // traffic every 5 ms, each datagram handled in 0.4 ms: the loop is busy 8% of its time
        for (long ms = 0; ms <= 100; ms += 5) {
            probe.loopRead(TimeUnit.MICROSECONDS.toNanos(ms * 1000 - 4_600), TimeUnit.MILLISECONDS.toNanos(ms));
        }
        assertTrue(probe.relaxed());
        atMs(100);
        assertEquals(1, tick(100, 200), "one probe in ten ticks");
        assertEquals(1, tick(200, 300));
    }

    @Test
    void aBusyLoopIsProbedOnEveryTick() throws Exception {
        // each datagram handled in 1 ms of every 5: busy a fifth of the time
        for (long ms = 0; ms <= 100; ms += 5) {
            loopReadMs(ms - 4, ms);
        }
        assertFalse(probe.relaxed(), "busy over a tenth of the window");
        assertEquals(10, tick(100, 200));
        // the load goes: the next full window of the loop's relaxed again
        for (long ms = 200; ms <= 300; ms += 50) {
            loopReadMs(ms - 49, ms);
        }
        assertTrue(probe.relaxed());
        assertEquals(1, tick(310, 410));
    }

    @Test
    void aProbeNotReadYetKeepsTheTicksGoing() throws Exception {
        for (long ms = 0; ms <= 100; ms += 10) {
            loopReadMs(ms - 9, ms);
        }
        atMs(100);
        probe.send();
        assertTrue(readNext(), "the first probe");
        atMs(200);
        probe.send();
        assertFalse(probe.relaxed(), "the loop has not read the probe: stuck, or behind a backlog");
        atMs(230);
        assertEquals(30, waitMs());
        assertTrue(readNext());
        assertTrue(probe.relaxed());
    }

    @Test
    void aLoopThatReadNothingForAWindowIsRelaxed() throws Exception {
        for (long ms = 0; ms <= 100; ms += 5) {
            loopReadMs(ms - 3, ms);
        }
        assertFalse(probe.relaxed());
        atMs(199);
        assertFalse(probe.relaxed(), "its last read 99 ms ago");
        atMs(200);
        assertTrue(probe.relaxed(), "blocked in its read for a whole window, every probe read");
    }

    @Test
    void probesThatNeverArriveSayNothing() throws Exception {
        // a host firewall that drops the probes must not make the gateway look overloaded
        atMs(0);
        probe.send();
        atMs(5_000);
        probe.send();
        assertEquals(0, waitMs());
    }

    @Test
    void onlyThisListenersProbesAreProbes() throws Exception {
        atMs(0);
        probe.send();
        byte[] buffer = new byte[2048];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        byte[] real = Arrays.copyOf(buffer, packet.getLength());

        SocketWaitProbe other;
        try (DatagramSocket otherSocket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            other = new SocketWaitProbe(otherSocket, nanos::get);
            assertFalse(other.read(real, real.length), "another listener's secret");
        }
        byte[] forged = real.clone();
        forged[10] ^= 1;
        assertFalse(probe.read(forged, forged.length), "a wrong secret");
        byte[] sip = "OPTIONS sip:gw SIP/2.0\r\n\r\n".getBytes();
        assertFalse(probe.read(sip, sip.length));
        assertTrue(probe.read(real, real.length));
    }

    @Test
    void aListenerOnEveryAddressProbesItselfOverLoopback() throws Exception {
        try (DatagramSocket wildcard = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0))) {
            wildcard.setSoTimeout(5_000);
            SocketWaitProbe onAll = new SocketWaitProbe(wildcard, nanos::get);
            onAll.send();
            byte[] buffer = new byte[2048];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            wildcard.receive(packet);
            assertTrue(onAll.read(buffer, packet.getLength()));
        }
    }
}
