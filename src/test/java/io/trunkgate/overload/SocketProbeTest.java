package io.trunkgate.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.overload.internal.SocketProbe;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The wait in a socket as its probes say it, on an injected clock; the socket is the queue of probes sent. */
class SocketProbeTest {

    private final AtomicLong nanos = new AtomicLong();
    private final Deque<byte[]> socket = new ArrayDeque<>();
    private final SocketProbe probe = new SocketProbe(sent -> socket.add(sent), nanos::get);

    private void atMs(long ms) {
        nanos.set(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private boolean readNext() {
        byte[] next = socket.remove();
        return probe.read(next, next.length);
    }

    @Test
    void theOldestProbeNotYetReadIsHowLongTheSocketHasHeldItsDatagrams() throws Exception {
        atMs(100);
        probe.send();
        assertTrue(readNext());
        assertEquals(0, probe.waitNanos(), "every probe read");
        atMs(110);
        probe.send();
        atMs(120);
        probe.send();
        atMs(250);
        assertEquals(Duration.ofMillis(140).toNanos(), probe.waitNanos(), "the probe sent at 110 ms is still unread");
        assertTrue(readNext());
        assertEquals(Duration.ofMillis(130).toNanos(), probe.waitNanos(), "now the one sent at 120 ms is the oldest");
        assertTrue(readNext());
        assertEquals(0, probe.waitNanos());
    }

    @Test
    void probesThatNeverArriveSayNothing() throws Exception {
        // a host firewall that drops the probes must not make the gateway look overloaded
        probe.send();
        atMs(5_000);
        probe.send();
        assertEquals(0, probe.waitNanos());
    }

    @Test
    void onlyThisSocketsProbesAreProbes() throws Exception {
        probe.send();
        byte[] real = socket.remove();
        SocketProbe other = new SocketProbe(sent -> true, nanos::get);
        assertFalse(other.read(real, real.length), "another socket's secret");
        byte[] sip = "OPTIONS sip:gw SIP/2.0\r\n\r\n".getBytes();
        assertFalse(probe.read(sip, sip.length));
        assertTrue(probe.read(real, real.length));
    }
}
