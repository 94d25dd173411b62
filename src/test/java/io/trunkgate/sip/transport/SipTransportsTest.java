package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.netty.util.concurrent.EventExecutor;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.internal.Sockets;
import io.trunkgate.sip.transport.internal.UdpListener;
import io.trunkgate.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.BindException;
import java.net.ConnectException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The transports over real sockets on loopback: UDP under epoll and NIO, IPv6, TCP flows, reuse, caps, timeouts. */
class SipTransportsTest {

    private static final SipListener UDP = new SipListener(Transport.UDP, "127.0.0.1", 0);
    private static final SipListener TCP = new SipListener(Transport.TCP, "127.0.0.1", 0);

    static String invite(String callId) {
        return "INVITE sip:+15551234@gw SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP 127.0.0.1:5099;branch=z9hG4bK-" + callId + "\r\n"
                + "From: <sip:alice@example.com>;tag=a1\r\n"
                + "To: <sip:+15551234@gw>\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    static String ok(String callId) {
        return "SIP/2.0 200 OK\r\nCall-ID: " + callId + "\r\nContent-Length: 0\r\n\r\n";
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    static String receive(DatagramSocket socket) throws IOException {
        DatagramPacket packet = new DatagramPacket(new byte[65_535], 65_535);
        socket.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.ISO_8859_1);
    }

    /** Reads from {@code in} until {@code length} bytes came, or the stream ended. */
    static String read(InputStream in, int length) throws IOException {
        return new String(in.readNBytes(length), StandardCharsets.ISO_8859_1);
    }

    /** Whether the far end closed {@code socket} within {@code timeout} (its read ends). */
    static boolean closedWithin(Socket socket, Duration timeout) throws IOException {
        socket.setSoTimeout((int) timeout.toMillis());
        try {
            while (true) {
                if (socket.getInputStream().read() < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @EnumSource(Sockets.class)
    void aDatagramIsDeliveredOnItsCallsLoopAndAnsweredFromTheListenersPort(Sockets sockets) throws Exception {
        assumeTrue(sockets != Sockets.EPOLL || Epoll.isAvailable(), "epoll is not available here");
        try (Loopback gateway = Loopback.listening(sockets, 2, TcpLimits.DEFAULTS, Optional.empty(),
                Loopback.overload(System::nanoTime), UDP);
             DatagramSocket caller = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            InetSocketAddress listener = gateway.address(UDP);
            caller.setSoTimeout(10_000);
            caller.send(new DatagramPacket(bytes(invite("udp-1")), invite("udp-1").length(), listener));

            Loopback.Delivered delivered = gateway.next();
            assertEquals(invite("udp-1"), delivered.text());
            assertTrue(gateway.transports.loopFor("udp-1").inEventLoop(delivered.thread()), "on the call's loop");
            InboundMessage message = delivered.message();
            assertEquals(Transport.UDP, message.transport());
            assertEquals(caller.getLocalSocketAddress(), message.remote());
            Flow flow = message.flow().orElseThrow();
            assertTrue(gateway.transports.isOpen(flow));

            await(gateway.transports.send(Destination.back(flow), bytes(ok("udp-1"))));
            DatagramPacket answer = new DatagramPacket(new byte[2048], 2048);
            caller.receive(answer);
            assertEquals(ok("udp-1"), new String(answer.getData(), 0, answer.getLength(), StandardCharsets.ISO_8859_1));
            assertEquals(listener, answer.getSocketAddress(), "answered from the port the caller wrote to");
        }
    }

    @Test
    void datagramsOfOneCallFromManyPortsAllReachItsOneLoop() throws Exception {
        try (Loopback gateway = Loopback.listening(UDP)) {
            InetSocketAddress listener = gateway.address(UDP);
            List<DatagramSocket> callers = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    DatagramSocket caller = new DatagramSocket(0, InetAddress.getLoopbackAddress());
                    callers.add(caller);
                    caller.send(new DatagramPacket(bytes(invite("one-call")), invite("one-call").length(), listener));
                }
                Set<Thread> threads = new HashSet<>();
                for (int i = 0; i < 16; i++) {
                    threads.add(gateway.next().thread());
                }
                assertEquals(1, threads.size(), "every copy on one loop, whichever socket read it");
            } finally {
                callers.forEach(DatagramSocket::close);
            }
        }
    }

    @Test
    void underEpollEachLoopReadsItsOwnSocketOnTheOnePortAndTheProbesFindEveryOne() throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll is not available here");
        var overload = Loopback.overload(System::nanoTime);
        try (Loopback gateway = Loopback.listening(Sockets.EPOLL, 3, TcpLimits.DEFAULTS, Optional.empty(), overload,
                UDP)) {
            UdpListener udp = gateway.transports.udpListeners().get(0);
            assertEquals(3, udp.sockets());
            assertTrue(Await.until(Duration.ofSeconds(20), () -> {
                overload.probeSockets();
                return udp.probesSteered();
            }, steered -> steered), "each of the 3 sockets read a probe from a source port of its own");

            SipListener same = new SipListener(Transport.UDP, "127.0.0.1", gateway.address(UDP).getPort());
            BindException taken = assertThrows(BindException.class, () -> Loopback.listening(Sockets.EPOLL, 2,
                    TcpLimits.DEFAULTS, Optional.empty(), Loopback.overload(System::nanoTime), same));
            assertTrue(taken.getMessage().contains("in use"), taken.getMessage());
        }
    }

    @Test
    void ipv6LoopbackOverUdpAndTcp() throws Exception {
        SipListener udp6 = new SipListener(Transport.UDP, "::1", 0);
        SipListener tcp6 = new SipListener(Transport.TCP, "[::1]", 0);
        try (Loopback gateway = Loopback.listening(udp6, tcp6, UDP);
             DatagramSocket caller = new DatagramSocket(0, InetAddress.getByName("::1"))) {
            caller.setSoTimeout(10_000);
            caller.send(new DatagramPacket(bytes(invite("v6-udp")), invite("v6-udp").length(), gateway.address(udp6)));
            InboundMessage datagram = gateway.next().message();
            assertEquals(InetAddress.getByName("::1"), datagram.remote().getAddress());

            await(gateway.transports.send(Destination.of(Transport.UDP,
                    (InetSocketAddress) caller.getLocalSocketAddress()), bytes(ok("v6-udp"))));
            DatagramPacket answer = new DatagramPacket(new byte[2048], 2048);
            caller.receive(answer);
            assertEquals(gateway.address(udp6), answer.getSocketAddress(), "from the IPv6 listener, not the IPv4 one");

            try (Socket tcpCaller = new Socket(InetAddress.getByName("::1"), gateway.address(tcp6).getPort())) {
                tcpCaller.getOutputStream().write(bytes(invite("v6-tcp")));
                InboundMessage message = gateway.next().message();
                assertEquals(Transport.TCP, message.transport());
                assertEquals("v6-tcp", message.head().callId());
                assertEquals(tcpCaller.getLocalSocketAddress(), message.remote());
            }
        }
    }

    @Test
    void noUdpListenerOfTheFamilyFailsTheSendAtOnce() throws Exception {
        try (Loopback gateway = Loopback.listening(UDP)) {
            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(gateway.transports.send(
                    Destination.of(Transport.UDP, new InetSocketAddress("::1", 5060)), bytes(ok("x")))));
            assertInstanceOf(IOException.class, failed.getCause());
        }
    }

    @Test
    void aRequestGoesBackOnTheCallersConnectionWhileItIsOpen() throws Exception {
        try (Loopback gateway = Loopback.listening(TCP)) {
            Flow flow;
            try (Socket caller = new Socket(InetAddress.getLoopbackAddress(), gateway.address(TCP).getPort())) {
                caller.setSoTimeout(10_000);
                caller.getOutputStream().write(bytes(invite("flow-1")));
                InboundMessage message = gateway.next().message();
                flow = message.flow().orElseThrow();
                assertEquals(caller.getLocalSocketAddress(), flow.remote());
                assertTrue(gateway.transports.isOpen(flow));

                String bye = invite("flow-1").replace("INVITE sip:+15551234@gw", "BYE sip:alice@10.0.0.1:5060");
                await(gateway.transports.send(Destination.back(flow), bytes(bye)));
                assertEquals(bye, read(caller.getInputStream(), bye.length()), "on the caller's own connection");
            }
            assertTrue(Await.until(Duration.ofSeconds(10), () -> !gateway.transports.isOpen(flow), closed -> closed));
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> await(gateway.transports.send(Destination.back(flow), bytes(ok("flow-1")))));
            assertInstanceOf(ConnectException.class, failed.getCause(),
                    "with the connection gone, to the address it came from: nothing listens there");
        }
    }

    @Test
    void oneConnectionPerCarrierAddressIsOpenedOnDemandAndReused() throws Exception {
        try (Loopback gateway = Loopback.listening(TCP);
             ServerSocket carrier = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = (InetSocketAddress) carrier.getLocalSocketAddress();
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < 10; i++) {
                sends.add(gateway.transports.send(Destination.of(Transport.TCP, address),
                        bytes(invite("reuse-" + i))).toCompletableFuture());
                expected.append(invite("reuse-" + i));
            }
            try (Socket connection = carrier.accept()) {
                connection.setSoTimeout(10_000);
                assertEquals(expected.toString(), read(connection.getInputStream(), expected.length()),
                        "every request, in the order sent");
                for (CompletableFuture<Void> send : sends) {
                    await(send);
                }
                await(gateway.transports.send(Destination.of(Transport.TCP, address), bytes(invite("reuse-10"))));
                assertEquals(invite("reuse-10"), read(connection.getInputStream(), invite("reuse-10").length()));
                carrier.setSoTimeout(200);
                assertThrows(SocketTimeoutException.class, carrier::accept, "a second connection to the carrier");

                connection.getOutputStream().write(bytes(ok("reuse-3")));
                InboundMessage answer = gateway.next().message();
                assertEquals("reuse-3", answer.head().callId());
                assertEquals(address, answer.remote());
                assertEquals(1, gateway.transports.connections());
            }
        }
    }

    @Test
    void aConnectionToACarrierLeavesFromTheAddressTheGatewayListensOn() throws Exception {
        SipListener onSecondAddress = new SipListener(Transport.TCP, "127.0.0.2", 0);
        try (Loopback gateway = Loopback.listening(onSecondAddress);
             ServerSocket carrier = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            gateway.transports.send(Destination.of(Transport.TCP, (InetSocketAddress) carrier.getLocalSocketAddress()),
                    bytes(invite("from")));
            try (Socket connection = carrier.accept()) {
                assertEquals(InetAddress.getByName("127.0.0.2"), connection.getInetAddress());
            }
        }
    }

    @Test
    void aRefusedConnectFailsTheSendAtOnce() throws Exception {
        InetSocketAddress nobody;
        try (ServerSocket reserved = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            nobody = (InetSocketAddress) reserved.getLocalSocketAddress();
        }
        try (Loopback gateway = Loopback.listening(TCP)) {
            long started = System.nanoTime();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> await(
                    gateway.transports.send(Destination.of(Transport.TCP, nobody), bytes(invite("refused")))));
            assertInstanceOf(ConnectException.class, failed.getCause());
            assertTrue(System.nanoTime() - started < Duration.ofSeconds(4).toNanos(), "not after a timeout");
            assertEquals(0, gateway.transports.connections(), "the failed connection is not kept");
        }
    }

    @Test
    void connectionsOverThePerSourceOrTotalCapAreClosed() throws Exception {
        TcpLimits caps = new TcpLimits(Duration.ofSeconds(60), Duration.ofSeconds(10), 3, 2);
        try (Loopback gateway = Loopback.listening(Sockets.best(), 2, caps, Optional.empty(),
                Loopback.overload(System::nanoTime), TCP)) {
            int port = gateway.address(TCP).getPort();
            List<Socket> open = new ArrayList<>();
            try {
                open.add(new Socket("127.0.0.1", port));
                open.add(new Socket("127.0.0.1", port));
                Socket third = new Socket("127.0.0.1", port);
                open.add(third);
                assertTrue(closedWithin(third, Duration.ofSeconds(10)), "a third connection from 127.0.0.1");
                open.add(new Socket("127.0.0.1", port, InetAddress.getByName("127.0.0.2"), 0));
                Socket fourth = new Socket("127.0.0.1", port, InetAddress.getByName("127.0.0.3"), 0);
                open.add(fourth);
                assertTrue(closedWithin(fourth, Duration.ofSeconds(10)), "a fourth connection in all");
                assertFalse(closedWithin(open.get(0), Duration.ofMillis(50)), "a connection within the caps");

                open.get(0).getOutputStream().write(bytes(invite("capped")));
                assertEquals("capped", gateway.next().message().head().callId());
            } finally {
                for (Socket socket : open) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void anIdleConnectionAndAnIncompleteMessageAreClosedAtTheirTimeoutsAndAPingIsPonged() throws Exception {
        Duration idle = Duration.ofMillis(600);
        Duration message = Duration.ofMillis(300);
        TcpLimits limits = new TcpLimits(idle, message, 100, 100);
        try (Loopback gateway = Loopback.listening(Sockets.best(), 2, limits, Optional.empty(),
                Loopback.overload(System::nanoTime), TCP);
             Socket silent = new Socket(InetAddress.getLoopbackAddress(), gateway.address(TCP).getPort());
             Socket partial = new Socket(InetAddress.getLoopbackAddress(), gateway.address(TCP).getPort())) {
            long opened = System.nanoTime();
            partial.getOutputStream().write(bytes("\r\n\r\n"));
            partial.setSoTimeout(10_000);
            assertEquals("\r\n", read(partial.getInputStream(), 2), "RFC 5626 pong");
            long started = System.nanoTime();
            partial.getOutputStream().write(bytes("INVITE sip:a@b SIP/2.0\r\n"));

            assertTrue(closedWithin(partial, Duration.ofSeconds(10)));
            long partialClosed = System.nanoTime() - started;
            assertTrue(partialClosed >= message.toNanos() && partialClosed < idle.toNanos(),
                    "half a message closed after " + partialClosed / 1_000_000 + " ms");
            assertTrue(closedWithin(silent, Duration.ofSeconds(10)));
            assertTrue(System.nanoTime() - opened >= idle.toNanos(), "the idle connection closed before its time");
        }
    }

    /**
     * Closing waits for each loop to close its socket; a loop that sends meanwhile (a call answering or cancelling
     * as the gateway stops) must not wait for anything the closing thread holds.
     */
    @Test
    void closingWhileEveryLoopIsAboutToSendEndsAndTheSendsAnswer() throws Exception {
        Loopback gateway = Loopback.listening(UDP);
        CountDownLatch release = new CountDownLatch(1);
        List<CompletableFuture<CompletionStage<Void>>> sends = new ArrayList<>();
        for (EventExecutor loop : gateway.transports.loops()) {
            CompletableFuture<CompletionStage<Void>> send = new CompletableFuture<>();
            sends.add(send);
            loop.execute(() -> {
                try {
                    release.await(10, TimeUnit.SECONDS);
                    send.complete(gateway.transports.send(Destination.of(Transport.UDP,
                            new InetSocketAddress("127.0.0.1", 9)), bytes(ok("closing"))));
                } catch (InterruptedException | RuntimeException e) {
                    send.completeExceptionally(e);
                }
            });
        }
        Thread closing = new Thread(gateway::close, "closing");
        closing.start();
        Await.atMost(Duration.ofSeconds(10)).until(() -> closing.getState() == Thread.State.WAITING);
        release.countDown();
        closing.join(10_000);
        assertFalse(closing.isAlive(), "close still waits for the loops");
        for (CompletableFuture<CompletionStage<Void>> send : sends) {
            // sent, or failed because its socket closed: either way answered
            send.get(10, TimeUnit.SECONDS).toCompletableFuture().handle((sent, failed) -> true)
                    .get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void closingFreesEveryPort() throws Exception {
        SipListener udp;
        SipListener tcp;
        try (Loopback first = Loopback.listening(UDP, TCP)) {
            udp = new SipListener(Transport.UDP, "127.0.0.1", first.address(UDP).getPort());
            tcp = new SipListener(Transport.TCP, "127.0.0.1", first.address(TCP).getPort());
        }
        try (Loopback again = Loopback.listening(udp, tcp)) {
            assertEquals(udp.port(), again.address(udp).getPort());
            assertEquals(tcp.port(), again.address(tcp).getPort());
        }
    }
}
