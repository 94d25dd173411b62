package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CertificateMatch;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestConfigs;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caller that asks for a TLS 1.2 renegotiation on its connection to the TLS listener gets an alert and the
 * connection is closed at once, where it used to hang until the connection's timeouts; other callers go on.
 */
class TlsRenegotiationTest {

    @TempDir
    Path dir;

    @Test
    void aRenegotiationIsRefusedWithAnAlertAndTheConnectionClosed() throws Exception {
        TestCertificates certificates = new TestCertificates(dir);
        TestCertificates.Issued ca = certificates.certificate("renegotiation test CA").ca().write("ca");
        TestCertificates.Issued gatewayCertificate = certificates.certificate("gateway").ip("127.0.0.1")
                .issuedBy(ca).write("gateway");
        TestCertificates.Issued peerCertificate = certificates.certificate("known peer").issuedBy(ca).write("peer");
        SipAgent carrier = SipAgent.start("127.0.0.141");
        SipAgent caller = SipAgent.startTls("127.0.0.142", peerCertificate, ca.certificate(), false, dir);
        int tlsPort = SipSockets.freePort();
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("tls-reneg", SipSockets.freePort())
                .instance("tls-reneg-gw")
                .listenTls(tlsPort, gatewayCertificate, Optional.empty())
                .peerByCertificate("known", CertificateMatch.Sha256.parse(peerCertificate.sha256()))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build())) {
            try (SSLSocket socket = tls12Client(ca)) {
                socket.connect(new InetSocketAddress("127.0.0.1", tlsPort), 5000);
                // Longer than an answer takes on a busy machine, far shorter than the connection's idle timeout.
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                assertEquals("TLSv1.2", socket.getSession().getProtocol());

                SSLException refused = assertThrows(SSLException.class, () -> {
                    socket.startHandshake(); // TLS 1.2: a renegotiation
                    socket.getInputStream().read();
                }, "the renegotiation gets an answer, not the silence of a timeout");
                assertTrue(!(refused.getCause() instanceof SocketTimeoutException)
                        && refused.getMessage().contains("close_notify"), "refused with an alert: " + refused);
            }

            SipAgent.Call call = caller.invite("127.0.0.1", tlsPort, "+4430000");
            assertEquals(200, call.awaitFinal(10_000).getStatusCode(), "other callers' TLS calls go on");
        } finally {
            caller.close();
            carrier.close();
        }
    }

    private static SSLSocket tls12Client(TestCertificates.Issued ca) throws Exception {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        trusted.setCertificateEntry("ca", ca.certificate());
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(trusted);
        SSLContext context = SSLContext.getInstance("TLSv1.2");
        context.init(null, trust.getTrustManagers(), null);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
        socket.setEnabledProtocols(new String[] {"TLSv1.2"});
        return socket;
    }
}
