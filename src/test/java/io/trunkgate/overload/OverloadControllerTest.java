package io.trunkgate.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The controller's rules one by one, on an injected clock. */
class OverloadControllerTest {

    private static final Duration TARGET = Duration.ofMillis(40);

    private final AtomicLong nanos = new AtomicLong();
    private final AtomicReference<OverloadSettings> settings =
            new AtomicReference<>(OverloadSettings.of(TARGET, 10, 0));
    private final OverloadController overload = new OverloadController(settings::get, nanos::get);

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    private Optional<ShedReason> shed(Duration waitAhead) {
        return overload.shed(0, false, waitAhead);
    }

    private boolean overloaded() {
        return overload.standingWaitMs() > TARGET.toMillis();
    }

    @Test
    void aStandingQueueIsOverloadAndABurstIsNot() {
        // a burst: some messages wait long, but the queue empties within the interval
        overload.messageWaited(90);
        overload.messageWaited(60);
        overload.messageWaited(2);
        advanceMs(100);
        assertEquals(Optional.empty(), shed(Duration.ZERO), "a burst that drained");
        // standing: every message of the interval waited over the target
        overload.messageWaited(45);
        overload.messageWaited(80);
        advanceMs(100);
        assertEquals(Optional.of(ShedReason.OVERLOAD), shed(Duration.ZERO), "every message waited over 40 ms");
        assertEquals(45, overload.standingWaitMs());
        // it ends as soon as one interval's shortest wait is back under the target
        overload.messageWaited(41);
        overload.messageWaited(3);
        advanceMs(100);
        assertEquals(Optional.empty(), shed(Duration.ZERO));
    }

    @Test
    void anIdleQueueOrNoTargetIsNeverOverload() {
        settings.set(OverloadSettings.of(Duration.ZERO, 10, 0));
        overload.messageWaited(500);
        advanceMs(100);
        assertEquals(Optional.empty(), shed(Duration.ofSeconds(1)), "no target set");
        advanceMs(100);
        assertFalse(overloaded(), "nothing taken in the last interval");
        overload.messageWaited(500);
        advanceMs(1_000);
        assertFalse(overloaded(), "the only wait seen is from long ago");
    }

    @Test
    void theWaitInTheSocketAndTheWaitForTheCallsLoopAddUp() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            socket.setSoTimeout(5_000);
            AtomicInteger probesSent = new AtomicInteger();
            SocketMeter meter = overload.socketMeter(probe -> {
                socket.send(new DatagramPacket(probe, probe.length, socket.getLocalSocketAddress()));
                probesSent.incrementAndGet();
                return true;
            });
            byte[] buffer = new byte[64];
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            overload.probeSockets();
            // the first probe is read a probe period late: the socket is not relaxed, it is probed on every tick
            advanceMs(10);
            socket.receive(packet);
            assertTrue(meter.read(buffer, packet.getLength()));
            byte[] sip = "OPTIONS sip:gw SIP/2.0\r\n\r\n".getBytes();
            assertFalse(meter.read(sip, sip.length), "SIP is no probe");
            // then nothing is read: each tick finds the probes of the ticks before still in the socket
            int ticks = 30;
            for (int tick = 0; tick < ticks; tick++) {
                advanceMs(10);
                assertEquals(settings.get().probePeriod(), overload.probeSockets(), "the next tick, probes out");
                overload.messageWaited(15);
            }
            assertEquals(1 + ticks, probesSent.get());
            assertTrue(overload.standingWaitMs() >= 90 + 15, "socket and loop " + overload.standingWaitMs() + " ms");
            assertEquals(Optional.of(ShedReason.OVERLOAD), shed(Duration.ZERO));
            // the socket is read up at once: empty at the next ticks, and the calls' loops keep up again
            for (int read = 0; read < ticks; read++) {
                socket.receive(packet);
                assertTrue(meter.read(buffer, packet.getLength()));
            }
            for (int tick = 0; tick < 10; tick++) {
                advanceMs(10);
                int before = probesSent.get();
                overload.probeSockets();
                for (int probe = before; probe < probesSent.get(); probe++) {
                    socket.receive(packet);
                    assertTrue(meter.read(buffer, packet.getLength()));
                }
                overload.messageWaited(2);
            }
            advanceMs(10);
            assertEquals(2, overload.standingWaitMs(), "the socket's wait is gone, the loops' is 2 ms");
            assertFalse(overloaded());
            assertEquals(settings.get().interval(), overload.probeSockets(), "a relaxed socket, probed less often");
        }
    }

    @Test
    void aBacklogOfFourTargetsAheadShedsANewCall() {
        assertEquals(Optional.empty(), shed(Duration.ofMillis(160)), "a burst's backlog, four targets");
        assertEquals(Optional.of(ShedReason.OVERLOAD), shed(Duration.ofMillis(161)), "more: a backlog read in one go");
        overload.messageWaited(3);
        advanceMs(100);
        assertEquals(Optional.empty(), shed(Duration.ofMillis(160)), "a wait under the target changes nothing");
    }

    @Test
    void theCapsComeFirstInTheirOrderAndFollowAReload() {
        settings.set(OverloadSettings.of(TARGET, 2, 1));
        assertEquals(Optional.of(ShedReason.CALLS_IN_PROGRESS), overload.shed(2, true, Duration.ZERO));
        assertEquals(Optional.of(ShedReason.DIALOGS), overload.shed(1, true, Duration.ZERO));
        assertEquals(Optional.empty(), overload.shed(1, false, Duration.ZERO), "the one call of this second");
        assertEquals(Optional.of(ShedReason.CALL_RATE), overload.shed(1, false, Duration.ZERO));
        advanceMs(1_000);
        assertEquals(Optional.empty(), overload.shed(1, false, Duration.ZERO), "the next second's");
        settings.set(OverloadSettings.of(TARGET, 3, 0));
        assertEquals(Optional.empty(), overload.shed(2, false, Duration.ZERO), "reloaded: three calls, no rate cap");
        assertEquals(Optional.empty(), overload.shed(2, false, Duration.ZERO));
        overload.drain();
        assertEquals(Optional.of(ShedReason.SHUTTING_DOWN), overload.shed(0, false, Duration.ZERO));
    }

    @Test
    void theShedReasonsKeepTheirTagsAndTexts() {
        assertEquals("overload", ShedReason.OVERLOAD.tag());
        assertEquals("gateway overloaded", ShedReason.OVERLOAD.text());
        assertEquals("starting shutting_down calls_in_progress call_rate overload dialogs",
                String.join(" ", Arrays.stream(ShedReason.values()).map(ShedReason::tag).toList()));
    }
}
