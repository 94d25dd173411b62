package io.trunkgate.sip.transport;

import io.trunkgate.capture.Capture;
import static io.trunkgate.sip.transport.SipTransportsTest.bytes;
import static io.trunkgate.sip.transport.SipTransportsTest.closedWithin;
import static io.trunkgate.sip.transport.SipTransportsTest.invite;
import static io.trunkgate.sip.transport.SipTransportsTest.ok;
import static io.trunkgate.sip.transport.SipTransportsTest.read;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.internal.Sockets;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.ManualTime;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.ExtendedSSLSession;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS over loopback against the JDK's own SSLSocket: callers to the gateway's listener, the gateway to carriers. */
class TlsTransportTest {

    @TempDir
    Path dir;
    private TestTls tls;
    private SipListener listener;

    private final ManualTime time = new ManualTime();

    @BeforeEach
    void material() throws Exception {
        tls = new TestTls(dir, time.clock());
        // the files are the engines' (TestTls): a TLS listener only has to name some
        listener = new SipListener(Transport.TLS, "127.0.0.1", 0, Optional.of(new TlsListenerSettings(
                dir.resolve("gw.pem"), dir.resolve("gw.key"), Optional.empty(), List.of(), Optional.empty())));
    }

    private Loopback gateway(Duration handshakeTimeout) throws Exception {
        SipTransports transports = SipTransports.create(Loopback.settings(List.of(listener), TcpLimits.DEFAULTS,
                handshakeTimeout), Loopback.overload(System::nanoTime), Optional.of(tls), Capture.NONE, Sockets.best(), 2,
                System::nanoTime);
        Loopback gateway = new Loopback(transports);
        transports.listen(gateway);
        return gateway;
    }

    private SSLSocket caller(Loopback gateway, String... protocols) throws Exception {
        int port = gateway.address(listener).getPort();
        Socket plain = new Socket(InetAddress.getLoopbackAddress(), port);
        SSLSocket socket = (SSLSocket) tls.callerContext().getSocketFactory().createSocket(plain,
                TestTls.GATEWAY_NAME, port, true);
        if (protocols.length > 0) {
            socket.setEnabledProtocols(protocols);
        }
        socket.setSoTimeout(10_000);
        return socket;
    }

    @Test
    void aCallersMessagesCarryItsClientCertificateAndAnswersGoBackOnItsConnection() throws Exception {
        try (Loopback gateway = gateway(Duration.ofSeconds(5)); SSLSocket caller = caller(gateway)) {
            caller.getOutputStream().write(bytes(invite("tls-1")));
            InboundMessage message = gateway.next().message();
            assertEquals(Transport.TLS, message.transport());
            assertEquals(invite("tls-1"), new String(message.bytes(), StandardCharsets.ISO_8859_1));
            assertEquals(tls.callerSha256(), message.certificate().orElseThrow().sha256());

            gateway.transports.send(Destination.back(message.flow().orElseThrow()), bytes(ok("tls-1")))
                    .toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(ok("tls-1"), read(caller.getInputStream(), ok("tls-1").length()));
        }
    }

    @Test
    void aRenewedListenerCertificateIsPresentedFromTheNextHandshake() throws Exception {
        try (Loopback gateway = gateway(Duration.ofSeconds(5))) {
            X509Certificate renewed = tls.renewGatewayCertificate();
            time.advance(Duration.ofSeconds(1));
            try (SSLSocket caller = caller(gateway)) {
                caller.startHandshake();
                assertEquals(renewed, caller.getSession().getPeerCertificates()[0]);
            }
        }
    }

    @Test
    void aConnectionThatNeverHandshakesIsClosedAtTheHandshakeTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(400);
        try (Loopback gateway = gateway(timeout);
             Socket silent = new Socket(InetAddress.getLoopbackAddress(), gateway.address(listener).getPort())) {
            long opened = System.nanoTime();
            assertTrue(closedWithin(silent, Duration.ofSeconds(10)));
            assertTrue(System.nanoTime() - opened >= timeout.toNanos(), "closed before the handshake timeout");
        }
    }

    @Test
    void aTls12RenegotiationIsRefusedAndOtherCallersGoOn() throws Exception {
        try (Loopback gateway = gateway(Duration.ofSeconds(5));
             SSLSocket renegotiating = caller(gateway, "TLSv1.2");
             SSLSocket other = caller(gateway)) {
            renegotiating.startHandshake();
            assertEquals("TLSv1.2", renegotiating.getSession().getProtocol());
            SSLException refused = assertThrows(SSLException.class, () -> {
                renegotiating.startHandshake();
                renegotiating.getOutputStream().write(bytes(invite("after-renegotiation")));
                renegotiating.getInputStream().read();
            });
            assertTrue(!(refused.getCause() instanceof SocketTimeoutException), "refused, not left hanging");

            other.getOutputStream().write(bytes(invite("other")));
            assertEquals("other", gateway.next().message().head().callId());
        }
    }

    @Test
    void theGatewayReachesATlsCarrierOnOneConnectionCheckedByName() throws Exception {
        try (Loopback gateway = gateway(Duration.ofSeconds(5));
             SSLServerSocket carrier = (SSLServerSocket) tls.carrierContext().getServerSocketFactory()
                     .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            InetSocketAddress address = (InetSocketAddress) carrier.getLocalSocketAddress();
            var first = gateway.transports.send(Destination.of(Transport.TLS, address), bytes(invite("c-1")));
            var second = gateway.transports.send(Destination.of(Transport.TLS, address), bytes(invite("c-2")));
            try (SSLSocket connection = (SSLSocket) carrier.accept()) {
                connection.setSoTimeout(10_000);
                String both = invite("c-1") + invite("c-2");
                assertEquals(both, read(connection.getInputStream(), both.length()));
                first.toCompletableFuture().get(10, TimeUnit.SECONDS);
                second.toCompletableFuture().get(10, TimeUnit.SECONDS);
                assertEquals(List.of(new SNIHostName(TestTls.CARRIER_NAME)),
                        ((ExtendedSSLSession) connection.getSession()).getRequestedServerNames(), "SNI");

                connection.getOutputStream().write(bytes(ok("c-1")));
                connection.getOutputStream().flush();
                assertEquals("c-1", gateway.next().message().head().callId());
            }
        }
    }

    @Test
    void aCarrierWhoseCertificateIsRefusedFailsTheSendAtOnceWithOneWarning() throws Exception {
        tls.expectCarrierNamed("other.example");
        try (Loopback gateway = gateway(Duration.ofSeconds(5));
             SSLServerSocket carrier = (SSLServerSocket) tls.carrierContext().getServerSocketFactory()
                     .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
             LogCapture log = LogCapture.of("io.trunkgate.sip.transport")) {
            InetSocketAddress address = (InetSocketAddress) carrier.getLocalSocketAddress();
            Thread accepting = new Thread(() -> {
                try (SSLSocket connection = (SSLSocket) carrier.accept()) {
                    connection.startHandshake();
                } catch (Exception expected) {
                    // the gateway refuses this carrier's certificate
                }
            });
            accepting.start();
            ExecutionException failed = assertThrows(ExecutionException.class, () -> gateway.transports.send(
                    Destination.of(Transport.TLS, address), bytes(invite("refused"))).toCompletableFuture()
                    .get(10, TimeUnit.SECONDS));
            assertInstanceOf(SSLHandshakeException.class, failed.getCause());
            accepting.join(10_000);
            assertEquals(1, log.events().stream().filter(e -> e.getLevel() == Level.WARN).count(),
                    log.events().toString());
            assertTrue(log.events().get(0).getFormattedMessage().contains("name mismatch"));
        }
    }
}
