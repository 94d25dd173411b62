package io.trunkgate.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.overload.internal.SocketProbe;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one meter of a UDP receive loop: its busy share, and the wait in its socket, on an injected clock. */
class ReceiveLoopTest {

    private static final byte[] SIP = "OPTIONS sip:gw SIP/2.0\r\n\r\n".getBytes();

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicLong standingWaitMs = new AtomicLong();
    private final DatagramSocket socket;
    private final ReceiveLoop loop;

    ReceiveLoopTest() throws Exception {
        socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        socket.setSoTimeout(5_000);
        loop = new ReceiveLoop(socket, OverloadSettings.of(Duration.ofMillis(40), 10_000, 0), nanos::get,
                standingWaitMs::get);
    }

    @AfterEach
    void close() {
        socket.close();
    }

    private void atMicros(long micros) {
        nanos.set(TimeUnit.MICROSECONDS.toNanos(micros));
    }

    private void atMs(long ms) {
        nanos.set(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    /** The loop blocked in its read from {@code startMicros} until a datagram came at {@code endMicros}. */
    private void readMicros(long startMicros, long endMicros) {
        atMicros(startMicros);
        loop.reading();
        atMicros(endMicros);
        assertFalse(loop.read(SIP, SIP.length));
    }

    /**
     * A datagram every {@code everyMicros} after {@code fromMs} until {@code toMs}, each keeping the loop busy for
     * {@code busyMicros} after it is read.
     */
    private void traffic(long fromMs, long toMs, long everyMicros, long busyMicros) {
        for (long at = fromMs * 1000 + everyMicros; at <= toMs * 1000; at += everyMicros) {
            readMicros(at - everyMicros + busyMicros, at);
        }
    }

    /**
     * Reads the next datagram from the socket and tells the loop, as the listener's receive loop does; the loop
     * reads again at once.
     */
    private boolean readNext() throws Exception {
        byte[] buffer = new byte[2048];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        boolean probe = loop.read(buffer, packet.getLength());
        loop.reading();
        return probe;
    }

    /**
     * Ticks every 10 ms from {@code fromMs} to {@code toMs} (exclusive), the loop reading each probe sent; the number
     * of probes that went out.
     */
    private int tick(long fromMs, long toMs) throws Exception {
        int sent = 0;
        for (long ms = fromMs; ms < toMs; ms += 10) {
            atMs(ms);
            loop.sendProbe();
            if (!loop.relaxed()) { // a probe is out
                assertTrue(readNext(), "the probe sent at " + ms + " ms");
                sent++;
            }
        }
        return sent;
    }

    @Test
    void theOldestProbeNotYetReadIsHowLongTheSocketHasHeldItsDatagrams() throws Exception {
        SocketProbe probe = new SocketProbe(socket, nanos::get);
        atMs(100);
        probe.send();
        assertTrue(probe.read(receive(), SocketProbe.LENGTH), "the probe arrives on the listener's own socket");
        assertEquals(0, probe.waitNanos(), "every probe read");
        atMs(110);
        probe.send();
        atMs(120);
        probe.send();
        atMs(250);
        assertEquals(Duration.ofMillis(140).toNanos(), probe.waitNanos(), "the probe sent at 110 ms is still unread");
        assertTrue(probe.read(receive(), SocketProbe.LENGTH));
        assertEquals(Duration.ofMillis(130).toNanos(), probe.waitNanos(), "now the one sent at 120 ms is the oldest");
        assertTrue(probe.read(receive(), SocketProbe.LENGTH));
        assertEquals(0, probe.waitNanos());
    }

    private byte[] receive() throws Exception {
        byte[] buffer = new byte[2048];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        return Arrays.copyOf(buffer, packet.getLength());
    }

    @Test
    void aLoopMostlyBlockedInItsReadIsProbedOnceAnInterval() throws Exception {
        // a datagram every 5 ms, each handled in 0.4 ms: the loop is busy 8% of its time
        traffic(0, 100, 5_000, 400);
        assertTrue(loop.relaxed());
        assertEquals(1, tick(100, 200), "one probe in ten ticks");
        assertEquals(1, tick(200, 300));
    }

    @Test
    void aBusyLoopIsProbedOnEveryTickUntilItIsRelaxedAgain() throws Exception {
        // each datagram handled in 1 ms of every 5: busy a fifth of the time
        traffic(0, 100, 5_000, 1_000);
        assertFalse(loop.relaxed(), "busy over a tenth of its window");
        atMs(100);
        loop.sendProbe();
        assertTrue(readNext());
        for (long ms = 110; ms < 200; ms += 10) {
            traffic(ms - 10, ms, 5_000, 1_000);
            atMs(ms);
            loop.sendProbe();
            assertTrue(readNext(), "a probe on the tick at " + ms + " ms");
        }
        // the load goes: the loop's next window finds it blocked in its read most of the time
        traffic(200, 300, 50_000, 1_000);
        assertTrue(loop.relaxed());
        assertEquals(1, tick(310, 410));
    }

    @Test
    void aProbeNotReadYetKeepsTheTicksGoing() throws Exception {
        traffic(0, 100, 10_000, 100);
        atMs(100);
        loop.sendProbe();
        assertTrue(readNext(), "the first probe");
        atMs(200);
        loop.sendProbe();
        assertFalse(loop.relaxed(), "the loop has not read the probe: stuck, or behind a backlog");
        atMs(230);
        assertEquals(Duration.ofMillis(30).toNanos(), loop.socketWaitNanos());
        assertTrue(readNext());
        assertTrue(loop.relaxed());
    }

    @Test
    void aLoopThatReadNothingForAnIntervalIsRelaxed() throws Exception {
        traffic(0, 100, 5_000, 3_000);
        assertFalse(loop.relaxed());
        atMs(199);
        assertFalse(loop.relaxed(), "its last read 99 ms ago");
        atMs(200);
        assertTrue(loop.relaxed(), "blocked in its read for a whole interval, every probe read");
    }

    @Test
    void probesThatNeverArriveSayNothing() throws Exception {
        // a host firewall that drops the probes must not make the gateway look overloaded
        SocketProbe probe = new SocketProbe(socket, nanos::get);
        atMs(0);
        probe.send();
        atMs(5_000);
        probe.send();
        assertEquals(0, probe.waitNanos());
    }

    @Test
    void onlyThisListenersProbesAreProbes() throws Exception {
        SocketProbe probe = new SocketProbe(socket, nanos::get);
        probe.send();
        byte[] real = receive();
        try (DatagramSocket otherSocket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            SocketProbe other = new SocketProbe(otherSocket, nanos::get);
            assertFalse(other.read(real, real.length), "another listener's secret");
        }
        byte[] forged = real.clone();
        forged[10] ^= 1;
        assertFalse(probe.read(forged, forged.length), "a wrong secret");
        assertFalse(probe.read(SIP, SIP.length));
        assertTrue(probe.read(real, real.length));
    }

    @Test
    void aListenerOnEveryAddressProbesItselfOverLoopback() throws Exception {
        try (DatagramSocket wildcard = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("0.0.0.0"), 0))) {
            wildcard.setSoTimeout(5_000);
            SocketProbe onAll = new SocketProbe(wildcard, nanos::get);
            onAll.send();
            byte[] buffer = new byte[2048];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            wildcard.receive(packet);
            assertTrue(onAll.read(buffer, packet.getLength()));
        }
    }

    @Test
    void aQuarterOfEachWindowMayBeSpentOutsideTheReadAndANewWindowStartsAfresh() {
        readMicros(0, 10_000);
        assertTrue(loop.mayHandle(), "the loop waited in its read");
        readMicros(12_000, 12_000);
        assertTrue(loop.mayHandle(), "2 of 2.5 ms spent");
        readMicros(13_000, 13_000);
        assertFalse(loop.mayHandle(), "3 ms spent in a window of 10");
        readMicros(13_500, 20_000);
        assertFalse(loop.mayHandle(), "the last window was busy 3.5 of 10 ms");
        readMicros(20_000, 30_000);
        assertTrue(loop.mayHandle(), "a window blocked in its read");
    }

    @Test
    void aLoopBusyOverAQuarterOfItsLastWindowLeavesTheHandlingToTheWorkers() {
        traffic(0, 20, 1_000, 600);
        assertFalse(loop.mayHandle(), "busy 60% of its last window");
        traffic(20, 40, 1_000, 100);
        assertTrue(loop.mayHandle(), "busy a tenth");
        standingWaitMs.set(1);
        assertFalse(loop.mayHandle(), "a wait stood over the last interval");
    }
}
