package io.trunkgate.sip;

import static io.trunkgate.testing.SipSockets.closeAll;
import static io.trunkgate.testing.SipSockets.closedWithin;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestConfigs;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand TLS connections that never finish their handshake (some send nothing, some half a ClientHello) are
 * held to the connection caps and closed at the handshake timeout, while a known peer's calls go on.
 */
class TlsHandshakeFloodTest {

    private static final int FLOOD = 1000;
    private static final int PER_SOURCE = 20;
    private static final int TOTAL = 100;
    /** The gateway's default sip.tls.handshake-timeout, and a margin for its sweep on a busy machine. */
    private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSED_BY = HANDSHAKE_TIMEOUT.plusSeconds(10);
    /** The first bytes of a TLS handshake record announcing more than follows. */
    private static final byte[] HALF_A_CLIENT_HELLO = {0x16, 0x03, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, (byte) 0xfc};

    @TempDir
    Path dir;

    @Test
    void halfOpenHandshakesAreBoundedAndClosedWhileAKnownPeerCalls() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        TestCertificates.Issued ca = certificates.certificate("flood test CA").ca().write("ca");
        TestCertificates.Issued gatewayCertificate = certificates.certificate("gateway").ip("127.0.0.1")
                .issuedBy(ca).write("gateway");
        TestCertificates.Issued peerCertificate = certificates.certificate("known peer").issuedBy(ca).write("peer");
        SipAgent carrier = SipAgent.start("127.0.0.131");
        SipAgent caller = SipAgent.startTls("127.0.0.132", peerCertificate, ca.certificate(), false, dir);
        int port = SipSockets.freePort();
        int tlsPort = SipSockets.freePort();
        List<Socket> flood = new ArrayList<>();
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("tls-flood", port).instance("tls-flood-gw")
                .tcpLimits(new TcpLimits(Duration.ofSeconds(120), Duration.ofSeconds(10), TOTAL, PER_SOURCE))
                .listenTls(tlsPort, gatewayCertificate, Optional.empty())
                .peerByCertificate("known", CertificateMatch.Sha256.parse(peerCertificate.sha256()))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build())) {
            SipAgent.Call first = caller.invite("127.0.0.1", tlsPort, "+4430000");
            assertEquals(200, first.awaitFinal(10_000).getStatusCode(), "the known peer's call before the flood");
            first.ack();

            for (int i = 0; i < FLOOD; i++) {
                Socket socket = SipSockets.connect("127.0.1." + (1 + i / PER_SOURCE), tlsPort);
                if (i % 2 == 0) {
                    send(socket, HALF_A_CLIENT_HELLO);
                }
                flood.add(socket);
            }
            for (int i = 0; i < 5; i++) {
                SipAgent.Call during = caller.invite("127.0.0.1", tlsPort, "+443000" + (i + 1));
                Response answer = during.awaitFinal(10_000);
                assertEquals(200, answer == null ? 0 : answer.getStatusCode(), "a known peer's call during the flood");
                during.ack();
                assertEquals(200, during.bye(10_000).getStatusCode());
            }

            long deadline = System.nanoTime() + CLOSED_BY.toNanos();
            int stillOpen = 0;
            for (Socket socket : flood) {
                Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
                if (!closedWithin(socket, left)) {
                    stillOpen++;
                }
            }
            assertEquals(0, stillOpen, "flood connections the gateway left open past the handshake timeout");
            assertTrue(SipSockets.establishedTo("127.0.0.1", tlsPort) <= 1,
                    "connections to the TLS listener once the flood is closed: the known peer's at most");
            assertEquals(200, first.bye(10_000).getStatusCode(), "the call placed before the flood ends normally");
        } finally {
            closeAll(flood);
            caller.close();
            carrier.close();
        }
    }

    private static void send(Socket socket, byte[] bytes) {
        try {
            socket.getOutputStream().write(bytes);
            socket.getOutputStream().flush();
        } catch (IOException refusedAtOnce) {
            // beyond the caps the gateway closes the connection as it accepts it
        }
    }
}
