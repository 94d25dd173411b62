package io.trunkgate.sip;

import static io.trunkgate.testing.SipSockets.closeAll;
import static io.trunkgate.testing.SipSockets.closedWithin;
import static io.trunkgate.testing.SipSockets.connect;
import static io.trunkgate.testing.SipSockets.establishedTo;
import static io.trunkgate.testing.SipSockets.invite;
import static io.trunkgate.testing.SipSockets.openDescriptors;
import static io.trunkgate.testing.SipSockets.responsesUntilFinal;
import static io.trunkgate.testing.SipSockets.send;
import static io.trunkgate.testing.SipSockets.statusLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.SipSockets;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.SipAgent;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import javax.sip.ListeningPoint;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Connections that do not carry SIP are closed on time: idle ones after the idle timeout, ones whose message
 * does not complete (half sent, or dribbled a byte at a time) after the message timeout, while keep-alives and
 * whole messages keep a connection open; many of them at once leave no descriptors behind.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TcpTimeoutsTest {

    private static final Duration IDLE = Duration.ofMillis(1500);
    private static final Duration MESSAGE = Duration.ofMillis(1000);
    /** Sweep interval (a tenth of the shorter timeout) plus scheduling on two busy cores. */
    private static final Duration SLACK = Duration.ofMillis(1500);

    private SipAgent carrier;
    private SipAgent tcpCarrier;
    private SipAgent caller;
    private Gateway gateway;
    private int port;
    private final ExecutorService watchers = Executors.newCachedThreadPool();

    @BeforeAll
    void start() throws Exception {
        carrier = SipAgent.start("127.0.0.53");
        tcpCarrier = SipAgent.start("127.0.0.54", ListeningPoint.TCP);
        caller = SipAgent.start("127.0.0.70");
        port = SipSockets.freePort();
        gateway = Gateway.start(SipSockets.config(port, new TcpLimits(IDLE, MESSAGE, 1000, 200), carrier, "127.0.0.70")
                .carrier("tcp", tcpCarrier, 10_000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("+4480", "tcp")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(carrier, tcpCarrier, caller).forEach(SipAgent::close);
        watchers.shutdownNow();
    }

    @Test
    void idleConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (Socket idle = connect("127.0.0.71", port)) {
            long opened = System.nanoTime();
            assertTrue(closedWithin(idle, IDLE.plus(SLACK)), "an idle connection stays open");
            assertTrue(System.nanoTime() - opened >= IDLE.toNanos() - Duration.ofMillis(100).toNanos(),
                    "closed before the idle timeout");
        }
    }

    @Test
    void keepAlivesKeepAConnectionOpenAndArePonged() throws Exception {
        try (Socket socket = connect("127.0.0.72", port)) {
            socket.setSoTimeout(1000);
            InputStream in = socket.getInputStream();
            long until = System.nanoTime() + IDLE.multipliedBy(2).toNanos();
            while (System.nanoTime() < until) {
                send(socket, "\r\n\r\n");
                assertEquals('\r', in.read(), "RFC 5626 pong");
                assertEquals('\n', in.read(), "RFC 5626 pong");
                long next = System.nanoTime() + IDLE.dividedBy(3).toNanos();
                assertFalse(closedWithin(socket, Duration.ofNanos(next - System.nanoTime())),
                        "a connection with keep-alives was closed");
            }
        }
    }

    @Test
    void halfAMessageIsClosedAfterTheMessageTimeout() throws Exception {
        try (Socket partial = connect("127.0.0.73", port)) {
            String invite = invite(partial, port);
            send(partial, invite.substring(0, invite.length() / 2));
            long sent = System.nanoTime();
            assertTrue(closedWithin(partial, MESSAGE.plus(SLACK)), "a half message keeps its connection open");
            assertTrue(System.nanoTime() - sent < IDLE.toNanos(),
                    "closed by the idle timeout, not the message timeout");
        }
    }

    @Test
    void aMessageDribbledAByteAtATimeIsClosedAfterTheMessageTimeout() throws Exception {
        try (Socket slow = connect("127.0.0.74", port)) {
            CompletableFuture<Long> closedAt = watchClose(slow);
            byte[] invite = invite(slow, port).getBytes(StandardCharsets.ISO_8859_1);
            long started = System.nanoTime();
            for (int i = 0; i < invite.length && !closedAt.isDone(); i++) {
                try {
                    slow.getOutputStream().write(invite[i]);
                    closedAt.get(100, TimeUnit.MILLISECONDS);
                } catch (IOException | TimeoutException stillSending) {
                    // the next byte, or the gateway has closed the connection
                }
            }
            long closed = closedAt.get(MESSAGE.plus(SLACK).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(closed - started >= MESSAGE.toNanos() - Duration.ofMillis(100).toNanos(), "closed too early");
            assertTrue(closed - started < MESSAGE.plus(SLACK).toNanos(), "a slow sender kept its connection open");
        }
    }

    @Test
    void wholeMessagesGoThroughAndACallIsConnected() throws Exception {
        try (Socket caller = connect("127.0.0.70", port)) {
            send(caller, invite(caller, port));
            List<String> responses = responsesUntilFinal(caller, Duration.ofSeconds(5));
            assertFalse(responses.isEmpty(), "no answer to an INVITE over TCP");
            assertEquals("SIP/2.0 200 OK", statusLine(responses.get(responses.size() - 1)));
        }
    }

    /**
     * The gateway's own connection to a carrier is read by the same framer (the carrier's answers arrive on it)
     * and closed when idle too; the next call opens a new one.
     */
    @Test
    void anIdleConnectionToACarrierIsClosedAndTheNextCallReopensIt() throws Exception {
        assertEquals(200, caller.invite(SipSockets.GW, port, "+448000001").awaitFinal(5000).getStatusCode());
        assertEquals(1, establishedTo(tcpCarrier.host(), tcpCarrier.port()), "one connection to the carrier");
        assertEquals(0L, Await.until(IDLE.plus(SLACK), () -> establishedTo(tcpCarrier.host(), tcpCarrier.port()),
                open -> open == 0), "the idle connection to the carrier stays open");
        assertEquals(200, caller.invite(SipSockets.GW, port, "+448000002").awaitFinal(5000).getStatusCode());
    }

    /**
     * The soak: 40 idle connections, 40 with half a message and 40 dribbling a message, all at once from four
     * addresses. Descriptors stay bounded while they are open, each is closed on time, and once the test's own
     * ends are closed the descriptor count is back where it started.
     */
    @Test
    void soakOfIdlePartialAndSlowConnectionsLeavesNoDescriptorsBehind() throws Exception {
        int each = 40;
        long descriptorsBefore = openDescriptors();
        List<Socket> idle = new ArrayList<>();
        List<Socket> partial = new ArrayList<>();
        List<Socket> slow = new ArrayList<>();
        List<CompletableFuture<Long>> idleClosed = new ArrayList<>();
        List<CompletableFuture<Long>> partialClosed = new ArrayList<>();
        List<CompletableFuture<Long>> slowClosed = new ArrayList<>();
        try {
            long started = System.nanoTime();
            for (int i = 0; i < each; i++) {
                Socket socket = connect("127.0.0.75", port);
                idle.add(socket);
                idleClosed.add(watchClose(socket));
                socket = connect("127.0.0.76", port);
                partial.add(socket);
                String text = invite(socket, port);
                send(socket, text.substring(0, text.length() / 2));
                partialClosed.add(watchClose(socket));
                socket = connect("127.0.0.77", port);
                slow.add(socket);
                slowClosed.add(watchClose(socket));
            }
            long descriptorsOpen = openDescriptors();
            assertTrue(descriptorsOpen - descriptorsBefore <= 2L * 3 * each + 20,
                    "descriptors went from " + descriptorsBefore + " to " + descriptorsOpen);
            CompletableFuture<Void> dribbling = CompletableFuture.runAsync(() -> dribble(slow), watchers);

            long deadline = started + IDLE.plus(SLACK).plus(Duration.ofSeconds(1)).toNanos();
            assertAllClosedBy(idleClosed, deadline, "idle");
            assertAllClosedBy(partialClosed, deadline, "partial");
            assertAllClosedBy(slowClosed, deadline, "slow");
            for (CompletableFuture<Long> closed : idleClosed) {
                assertTrue(closed.get() - started >= IDLE.toNanos() - Duration.ofMillis(100).toNanos(),
                        "an idle connection closed before the idle timeout");
            }
            dribbling.get(5, TimeUnit.SECONDS);
        } finally {
            closeAll(idle);
            closeAll(partial);
            closeAll(slow);
        }
        long descriptorsAfter = Await.until(Duration.ofSeconds(5), SipSockets::openDescriptors,
                open -> open <= descriptorsBefore + 10);
        assertTrue(descriptorsAfter <= descriptorsBefore + 10,
                "descriptors " + descriptorsBefore + " before, " + descriptorsAfter + " after");
        wholeMessagesGoThroughAndACallIsConnected();
    }

    /** Writes one byte of an INVITE to each socket every 100 ms until the gateway has closed them all. */
    private void dribble(List<Socket> sockets) {
        List<byte[]> messages = new ArrayList<>();
        for (Socket socket : sockets) {
            messages.add(invite(socket, port).getBytes(StandardCharsets.ISO_8859_1));
        }
        boolean anyOpen = true;
        for (int i = 0; anyOpen; i++) {
            anyOpen = false;
            for (int s = 0; s < sockets.size(); s++) {
                try {
                    sockets.get(s).getOutputStream().write(messages.get(s)[i % messages.get(s).length]);
                    anyOpen = true;
                } catch (IOException closedByTheGateway) {
                    // expected once the message timeout passes
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The time the gateway closes {@code socket}: end of stream or reset, as seen by a reader. */
    private CompletableFuture<Long> watchClose(Socket socket) {
        return CompletableFuture.supplyAsync(() -> {
            byte[] chunk = new byte[1024];
            try {
                socket.setSoTimeout(0);
                InputStream in = socket.getInputStream();
                while (in.read(chunk) >= 0) {
                    // pongs and answers are not what is watched for
                }
            } catch (IOException closed) {
                // a reset, or the test closing its end
            }
            return System.nanoTime();
        }, watchers);
    }

    private static void assertAllClosedBy(List<CompletableFuture<Long>> closes, long deadlineNanos, String kind)
            throws Exception {
        for (CompletableFuture<Long> closed : closes) {
            long waitNanos = Math.max(1, deadlineNanos - System.nanoTime());
            try {
                closed.get(waitNanos, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new AssertionError("a " + kind + " connection is still open", e);
            }
        }
    }
}
