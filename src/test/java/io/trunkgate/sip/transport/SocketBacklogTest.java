package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.epoll.Epoll;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.ShedReason;
import io.trunkgate.sip.transport.internal.Sockets;
import io.trunkgate.sip.transport.internal.UdpListener;
import io.trunkgate.testing.Await;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Overload control sees the datagrams waiting unread in a UDP socket whose loop is stalled, though no message waits
 * for a loop: real sockets, and overload control on a manual clock. While the loop is held, probes sent to its
 * socket stay unread; their age is the socket's wait, and the controller's standing wait is the most backlogged
 * socket's. Once the loop goes on, every datagram that waited is delivered and the wait falls back to zero.
 */
class SocketBacklogTest {

    private static final SipListener UDP = new SipListener(Transport.UDP, "127.0.0.1", 0);
    private static final Duration TICK = Duration.ofMillis(10);

    private final AtomicLong nanos = new AtomicLong(Duration.ofHours(1).toNanos());
    private final OverloadController overload = Loopback.overload(nanos::get);

    /** One tick of overload control's prober, {@code TICK} later on its clock. */
    private long tick() {
        nanos.addAndGet(TICK.toNanos());
        overload.probeSockets();
        return overload.standingWaitMs();
    }

    @ParameterizedTest
    @EnumSource(Sockets.class)
    void aStalledLoopsSocketBacklogIsTheStandingWait(Sockets sockets) throws Exception {
        assumeTrue(sockets != Sockets.EPOLL || Epoll.isAvailable(), "epoll is not available here");
        try (Loopback gateway = Loopback.listening(sockets, 2, TcpLimits.DEFAULTS, Optional.empty(), overload, UDP)) {
            UdpListener udp = gateway.transports.udpListeners().get(0);
            assertTrue(Await.until(Duration.ofSeconds(20), () -> {
                tick();
                return udp.probesSteered();
            }, steered -> steered), "every socket's probes steered to it");
            assertEquals(0, Await.until(Duration.ofSeconds(20), this::tick, wait -> wait == 0));

            // the first loop reads the first socket (the only one under NIO)
            EventLoop stalled = (EventLoop) gateway.transports.loops().iterator().next();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            stalled.execute(() -> {
                holding.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            holding.await();
            int calls = 40;
            InetSocketAddress listener = gateway.address(UDP);
            for (int i = 0; i < calls; i++) {
                try (DatagramSocket caller = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
                    // BYEs: a new INVITE that waited over T1 is dropped unread on its loop
                    byte[] bye = SipTransportsTest.bytes(SipTransportsTest.invite("stalled-" + i)
                            .replace("INVITE", "BYE").replace("To: <sip:+15551234@gw>", "To: <sip:b@gw>;tag=b"));
                    caller.send(new DatagramPacket(bye, bye.length, listener));
                }
            }
            long standing = Await.until(Duration.ofSeconds(20), this::tick, wait -> wait >= 200);
            assertTrue(standing >= 200, "standing wait " + standing + " ms with the loop stalled");
            assertEquals(Optional.of(ShedReason.OVERLOAD), overload.shed(0, false, Duration.ZERO));

            release.countDown();
            Set<String> delivered = new HashSet<>();
            for (int i = 0; i < calls; i++) {
                delivered.add(gateway.next().message().head().callId());
            }
            assertEquals(calls, delivered.size(), "every datagram that waited is read, and no probe delivered");
            assertEquals(0, Await.until(Duration.ofSeconds(20), this::tick, wait -> wait == 0));
        }
    }
}
