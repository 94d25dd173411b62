package io.trunkgate.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same trust decisions over blocking SSLSockets on loopback, which reach the trust managers through their
 * Socket overloads rather than the SSLEngine ones.
 */
class TlsSocketsTest {

    @TempDir
    Path dir;
    private TestCertificates certs;
    private Issued ca;
    private final ExecutorService acceptor = Executors.newSingleThreadExecutor();

    @BeforeEach
    void setUp() {
        certs = new TestCertificates(dir);
        ca = certs.certificate("Test CA").ca().write("ca");
    }

    @AfterEach
    void stop() {
        acceptor.shutdownNow();
    }

    private static ServerTls listener(Issued certificate, Optional<Path> clientCa) throws TlsMaterialException {
        return ServerTls.load(new TlsListenerSettings(certificate.certificateFile(), certificate.keyFile(),
                Optional.empty(), List.of(), clientCa), Clock.systemUTC());
    }

    /**
     * A TLS connection over loopback from a carrier-side client (trusting {@code ca}, presenting {@code clientCert})
     * to {@code server}, made for {@code host}; the server side's peer certificate once both finished.
     */
    private Optional<PeerCertificate> connect(ServerTls server, String host, Optional<ServerTls> clientCert)
            throws Exception {
        try (SSLServerSocket listening = (SSLServerSocket) server.context().getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            listening.setSSLParameters(server.serverParameters());
            Future<Optional<PeerCertificate>> accepted = acceptor.submit(() -> {
                try (SSLSocket socket = (SSLSocket) listening.accept()) {
                    socket.setSoTimeout(10_000);
                    socket.startHandshake();
                    Optional<PeerCertificate> shown = server.peerCertificate(socket.getSession());
                    socket.getOutputStream().write(1);
                    return shown;
                }
            });
            try (Socket plain = new Socket()) {
                plain.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), listening.getLocalPort()), 10_000);
                plain.setSoTimeout(10_000);
                SSLSocket socket = (SSLSocket) CarrierTrust.clientContext(Optional.of(ca.certificateFile()), clientCert)
                        .getSocketFactory().createSocket(plain, host, listening.getLocalPort(), false);
                socket.setSSLParameters(CarrierTrust.clientParameters());
                socket.startHandshake();
                assertEquals(1, socket.getInputStream().read());
                // closed before waiting: the server's close waits for the client's close_notify (TLS 1.3)
                socket.close();
                return accepted.get(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aCarrierIsCheckedByNameAndAClientCertificateRecordedOverSockets() throws Exception {
        ServerTls carrier = listener(certs.certificate("c").dns("carrier.example").issuedBy(ca).write("carrier"),
                Optional.of(ca.certificateFile()));
        ServerTls gateway = listener(certs.certificate("gw").issuedBy(ca).write("gw"), Optional.empty());
        ServerTls pinned = listener(certs.certificate("pinned").write("pinned"), Optional.empty());

        assertTrue(connect(carrier, "carrier.example", Optional.of(gateway)).orElseThrow().verifiedByClientCa());
        assertFalse(connect(carrier, "carrier.example", Optional.of(pinned)).orElseThrow().verifiedByClientCa());
        assertEquals(Optional.empty(), connect(carrier, "carrier.example", Optional.empty()));

        SSLHandshakeException mismatch = assertThrows(SSLHandshakeException.class,
                () -> connect(carrier, "other.example", Optional.empty()));
        assertTrue(mismatch.getMessage().contains("certificate for other.example: name mismatch, certificate names"
                + " [carrier.example]"), mismatch.getMessage());
    }
}
