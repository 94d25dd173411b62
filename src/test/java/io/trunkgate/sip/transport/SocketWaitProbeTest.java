package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
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
        atMs(0);
        probe.send();
        assertTrue(readNext(), "the probe arrives on the listener's own socket");
        assertEquals(0, waitMs(), "every probe read");
        probe.heard(); // traffic
        atMs(10);
        probe.send();
        atMs(20);
        probe.send();
        atMs(150);
        assertEquals(140, waitMs(), "the probe sent at 10 ms is still unread");
        assertTrue(readNext());
        assertEquals(130, waitMs(), "now the one sent at 20 ms is the oldest unread");
        assertTrue(readNext());
        assertEquals(0, waitMs());
    }

    @Test
    void aQuietSocketIsProbedEveryTenthTickAndAsSoonAsItHearsTraffic() throws Exception {
        atMs(0);
        probe.send();
        assertTrue(readNext());
        assertTrue(probe.quiet());
        for (long ms = 10; ms < 100; ms += 10) {
            atMs(ms);
            probe.send(); // quiet: nothing heard, every probe read
        }
        atMs(100);
        probe.send();
        assertTrue(readNext(), "the quiet socket's probe, 100 ms after the last");
        probe.heard();
        assertFalse(probe.quiet(), "traffic read");
        atMs(110);
        probe.send();
        assertTrue(readNext());
        atMs(120);
        probe.send(); // traffic 20 ms ago: probed on
        atMs(125);
        assertEquals(5, waitMs(), "the probe sent at 120 ms is unread");
        assertTrue(readNext());
        atMs(199);
        probe.send(); // traffic 99 ms ago: still probed
        assertTrue(readNext());
        atMs(200);
        assertTrue(probe.quiet(), "nothing but probes read for 100 ms");
        atMs(210);
        probe.send();
        socket.setSoTimeout(200);
        assertThrows(SocketTimeoutException.class, this::readNext, "a quiet tick sent nothing");
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
