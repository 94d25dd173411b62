package io.trunkgate.sip.jainsip;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.SipSettings;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The wait of datagrams in a UDP listener's socket, seen through a real JAIN-SIP stack: its receive loop reads the
 * probes (which never reach the stack), and a new INVITE read after a backlog carries that backlog's age as the
 * wait ahead of it, which is what sheds it.
 */
class SocketWaitTest {

    private static final Duration STALL = Duration.ofMillis(200);

    @Test
    void aNewInviteReadAfterABacklogKnowsHowLongTheSocketHeldIt() throws Exception {
        int port = SipSockets.freePort();
        SipSettings sip = TestConfigs.onSharedRedis("socket-wait", port).build().sip();
        OverloadSettings settings = OverloadSettings.of(STALL.dividedBy(2), sip.maxCallsInProgress(), 0);
        OverloadController delay = new OverloadController(() -> settings, System::nanoTime);
        SipStackFactory.Stack stack = SipStackFactory.create("socket-wait-" + port, sip, delay);
        List<Duration> waitsAhead = new CopyOnWriteArrayList<>();
        CountDownLatch firstAsked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (DatagramSocket caller = new DatagramSocket(new InetSocketAddress(SipSockets.GW, 0))) {
            // the gate holds the receive loop on the first INVITE, as a starved listener thread would be held
            stack.newCalls().deliverTo((source, certificate, callId, callerTag, cseq, waitAhead) -> {
                waitsAhead.add(waitAhead);
                firstAsked.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return Optional.of("overloaded");
            });
            delay.probeSockets(); // read before the first INVITE: from now on the probes are trusted
            send(caller, port);
            assertTrue(firstAsked.await(30, TimeUnit.SECONDS));
            send(caller, port);
            await().atMost(Duration.ofSeconds(30)).pollInterval(settings.probePeriod()).until(() -> {
                delay.probeSockets();
                return delay.standingWaitMs() >= STALL.toMillis();
            });
            assertTrue(delay.standingWaitMs() > settings.target().toMillis());

            release.countDown();
            await().atMost(Duration.ofSeconds(30)).until(() -> waitsAhead.size() == 2);
            assertTrue(waitsAhead.get(1).compareTo(STALL) >= 0, "wait ahead of the second INVITE: "
                    + waitsAhead.get(1));
            await().atMost(Duration.ofSeconds(30)).pollInterval(settings.probePeriod()).until(() -> {
                delay.probeSockets();
                return delay.standingWaitMs() == 0;
            });
            assertEquals(2, waitsAhead.size(), "only the two INVITEs were put to the gate");
        } finally {
            release.countDown();
            stack.stack().stop();
        }
    }

    private static void send(DatagramSocket caller, int port) throws Exception {
        byte[] invite = SipSockets.invite("UDP", SipSockets.GW, caller.getLocalPort(), port)
                .getBytes(StandardCharsets.US_ASCII);
        caller.send(new DatagramPacket(invite, invite.length, new InetSocketAddress(SipSockets.GW, port)));
    }
}
