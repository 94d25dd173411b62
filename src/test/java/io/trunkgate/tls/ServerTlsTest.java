package io.trunkgate.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import io.trunkgate.testing.TestCertificates.KeyType;
import io.trunkgate.testing.TlsHandshake;
import io.trunkgate.tls.internal.ClientCertificateTrust;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A TLS listener's material: loading and its errors, real handshakes, client certificates, reload. */
class ServerTlsTest {

    @TempDir
    Path dir;
    private TestCertificates certs;
    private Issued ca;

    @BeforeEach
    void setUp() {
        certs = new TestCertificates(dir);
        ca = certs.certificate("Test CA").ca().write("ca");
    }

    private static TlsListenerSettings settings(Path certificate, Path key) {
        return new TlsListenerSettings(certificate, key, Optional.empty(), List.of(), Optional.empty());
    }

    private static TlsListenerSettings settings(Issued issued) {
        return settings(issued.certificateFile(), issued.keyFile());
    }

    /** A server engine of {@code server} and a carrier-side client engine trusting {@code ca}, for {@code host}. */
    private static X509Certificate presented(ServerTls server, Path caFile, String host) throws Exception {
        SSLEngine client = CarrierTrust.clientContext(Optional.of(caFile), Optional.empty())
                .createSSLEngine(host, 5061);
        SSLEngine engine = server.context().createSSLEngine();
        engine.setSSLParameters(server.serverParameters());
        TlsHandshake.handshake(client, engine);
        return (X509Certificate) client.getSession().getPeerCertificates()[0];
    }

    @Test
    void rsaAndEcCertificatesAreServedInRealHandshakes() throws Exception {
        for (KeyType type : KeyType.values()) {
            Issued server = certs.certificate("gw").dns("gw.example").key(type).issuedBy(ca).write("gw-" + type);

            ServerTls tls = ServerTls.load(settings(server), Clock.systemUTC());

            assertEquals(server.certificate(), presented(tls, ca.certificateFile(), "gw.example"));
            assertEquals(server.certificate().getNotAfter().toInstant(), tls.status().notAfter());
            assertEquals(Optional.empty(), tls.status().lastReloadError());
        }
    }

    @Test
    void encryptedKeysLoadWithTheirPassword() throws Exception {
        Issued server = certs.certificate("gw").dns("gw.example").key(KeyType.RSA).issuedBy(ca).write("gw");
        for (Path key : List.of(server.encryptedKey("pkcs8.key", "s3cret"),
                server.opensslEncryptedKey("openssl.key", "s3cret"), server.traditionalKey("plain-pkcs1.key"))) {
            ServerTls tls = ServerTls.load(new TlsListenerSettings(server.certificateFile(), key,
                    Optional.of("s3cret"), List.of(), Optional.empty()), Clock.systemUTC());

            assertEquals(server.certificate(), presented(tls, ca.certificateFile(), "gw.example"), key.toString());
        }
    }

    @Test
    void aWrongOrMissingPasswordIsNamed() {
        Issued server = certs.certificate("gw").issuedBy(ca).write("gw");
        Path pkcs8 = server.encryptedKey("pkcs8.key", "right");
        Path openssl = server.opensslEncryptedKey("openssl.key", "right");

        for (Path key : List.of(pkcs8, openssl)) {
            TlsMaterialException wrong = assertThrows(TlsMaterialException.class, () -> ServerTls.load(
                    new TlsListenerSettings(server.certificateFile(), key, Optional.of("wrong"), List.of(),
                            Optional.empty()), Clock.systemUTC()));
            assertTrue(wrong.getMessage().startsWith(key + ": cannot decrypt the key: wrong private-key-password"),
                    wrong.getMessage());
            assertTrue(wrong.password());

            TlsMaterialException missing = assertThrows(TlsMaterialException.class,
                    () -> ServerTls.load(settings(server.certificateFile(), key), Clock.systemUTC()));
            assertEquals(key + ": the key is encrypted and private-key-password is not set", missing.getMessage());
            assertEquals(key, missing.file());
        }
    }

    @Test
    void badFilesAreNamedWithWhatIsWrong() throws Exception {
        Issued server = certs.certificate("gw").issuedBy(ca).write("gw");
        Issued other = certs.certificate("other").issuedBy(ca).write("other");
        Path text = Files.writeString(dir.resolve("notes.txt"), "not a certificate\n");
        Path der = Files.write(dir.resolve("gw.der"), server.certificate().getEncoded());

        assertProblem(settings(server.certificateFile(), other.keyFile()), other.keyFile(),
                other.keyFile() + ": does not match the certificate in " + server.certificateFile());
        assertProblem(settings(text, server.keyFile()), text, text + ": not a PEM file: no \"-----BEGIN");
        assertProblem(settings(der, server.keyFile()), der, der + ": not a PEM file: it holds binary data, DER perhaps");
        assertProblem(settings(server.keyFile(), server.keyFile()), server.keyFile(),
                server.keyFile() + ": no certificate in it");
        assertProblem(settings(server.certificateFile(), server.certificateFile()), server.certificateFile(),
                server.certificateFile() + ": no private key in it");
        assertProblem(new TlsListenerSettings(server.certificateFile(), server.keyFile(), Optional.empty(), List.of(),
                Optional.of(text)), text, text + ": not a PEM file");
    }

    private static void assertProblem(TlsListenerSettings settings, Path file, String message) {
        TlsMaterialException e = assertThrows(TlsMaterialException.class,
                () -> ServerTls.load(settings, Clock.systemUTC()));
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
        assertEquals(file, e.file());
    }

    @Test
    void anExpiredCertificateLoadsWithAWarning() throws Exception {
        Issued expired = certs.certificate("gw").dns("gw.example").issuedBy(ca).expired().write("expired");

        try (LogCapture log = LogCapture.of(ServerTls.class)) {
            ServerTls tls = ServerTls.load(settings(expired), Clock.systemUTC());

            assertEquals(expired.certificate().getNotAfter().toInstant(), tls.status().notAfter());
            assertTrue(log.events().stream().anyMatch(e -> e.getLevel() == Level.WARN
                    && e.getFormattedMessage().contains("expired on")), log.events().toString());
        }
    }

    @Test
    void theDefaultSuitesAreTls13AndEcdheWithAead() throws Exception {
        Issued server = certs.certificate("gw").issuedBy(ca).write("gw");
        ServerTls tls = ServerTls.load(settings(server), Clock.systemUTC());

        assertEquals(List.of("TLSv1.3", "TLSv1.2"), List.of(tls.protocols()));
        assertTrue(Arrays.asList(tls.cipherSuites()).contains("TLS_AES_128_GCM_SHA256"));
        assertTrue(Arrays.asList(tls.cipherSuites()).contains("TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"));
        for (String suite : tls.cipherSuites()) {
            assertFalse(suite.contains("CBC") || suite.startsWith("TLS_RSA_") || suite.startsWith("TLS_DHE_"), suite);
        }
    }

    @Test
    void configuredSuitesAreTheOnesOffered() throws Exception {
        Issued server = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("gw");
        ServerTls tls = ServerTls.load(new TlsListenerSettings(server.certificateFile(), server.keyFile(),
                Optional.empty(), List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"), Optional.empty()),
                Clock.systemUTC());
        SSLEngine client = CarrierTrust.clientContext(Optional.of(ca.certificateFile()), Optional.empty())
                .createSSLEngine("gw.example", 5061);
        SSLEngine engine = tls.context().createSSLEngine();
        engine.setSSLParameters(tls.serverParameters());

        TlsHandshake.handshake(client, engine);

        assertEquals("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", client.getSession().getCipherSuite());
        assertEquals("TLSv1.2", client.getSession().getProtocol());
    }

    /** The peer certificate a client presenting {@code clientCert} (or none) shows on a listener of {@code tls}. */
    private Optional<PeerCertificate> clientShows(ServerTls tls, Optional<Issued> clientCert) throws Exception {
        Optional<ServerTls> presenting = clientCert.isEmpty() ? Optional.empty()
                : Optional.of(ServerTls.load(settings(clientCert.get()), Clock.systemUTC()));
        SSLContext clientContext = CarrierTrust.clientContext(Optional.of(ca.certificateFile()), presenting);
        SSLEngine client = clientContext.createSSLEngine("gw.example", 5061);
        SSLEngine server = tls.context().createSSLEngine();
        server.setSSLParameters(tls.serverParameters());
        TlsHandshake.handshake(client, server);
        // recorded by the trust manager during the handshake itself (TLS 1.3 included), not worked out afterwards
        assertEquals(clientCert.isPresent(),
                server.getSession().getValue(ClientCertificateTrust.VERIFIED) instanceof Boolean);
        return tls.peerCertificate(server.getSession());
    }

    @Test
    void clientCertificatesAreTakenAndTheirVerificationRecordedPerSession() throws Exception {
        Issued server = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("gw");
        Issued clientCa = certs.certificate("Clients CA").ca().write("clients-ca");
        Issued member = certs.certificate("acme trunk").subject("CN=acme trunk,O=Acme").dns("trunk.acme.example")
                .issuedBy(clientCa).write("acme");
        Issued selfSigned = certs.certificate("pinned").write("pinned");
        Issued otherCa = certs.certificate("Other CA").ca().write("other-ca");
        Issued stranger = certs.certificate("stranger").dns("trunk.acme.example").issuedBy(otherCa).write("stranger");
        ServerTls tls = ServerTls.load(new TlsListenerSettings(server.certificateFile(), server.keyFile(),
                Optional.empty(), List.of(), Optional.of(clientCa.certificateFile())), Clock.systemUTC());

        PeerCertificate verified = clientShows(tls, Optional.of(member)).orElseThrow();
        assertTrue(verified.verifiedByClientCa());
        assertTrue(verified.withinValidity());
        assertEquals("CN=acme trunk,O=Acme", verified.subject());
        assertEquals(List.of("trunk.acme.example"), verified.subjectAltNames());
        assertEquals(member.sha256(), verified.sha256());

        PeerCertificate pinned = clientShows(tls, Optional.of(selfSigned)).orElseThrow();
        assertFalse(pinned.verifiedByClientCa());
        assertEquals(selfSigned.sha256(), pinned.sha256());

        assertFalse(clientShows(tls, Optional.of(stranger)).orElseThrow().verifiedByClientCa());
        assertEquals(Optional.empty(), clientShows(tls, Optional.empty()));
    }

    @Test
    void withoutClientCaNoCertificateCountsAsVerified() throws Exception {
        Issued server = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("gw");
        Issued member = certs.certificate("acme").issuedBy(ca).write("acme");
        ServerTls tls = ServerTls.load(settings(server), Clock.systemUTC());

        PeerCertificate shown = clientShows(tls, Optional.of(member)).orElseThrow();

        assertFalse(shown.verifiedByClientCa());
        assertEquals(member.sha256(), shown.sha256());
    }

    @Test
    void renewedFilesAreServedAfterTheNextCheckAndABrokenRenewalKeepsTheOldOne() throws Exception {
        ManualTime time = new ManualTime();
        Issued first = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("gw");
        ServerTls tls = ServerTls.load(settings(first), time.clock());
        assertEquals(first.certificate(), presented(tls, ca.certificateFile(), "gw.example"));

        Issued renewed = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("gw");
        assertEquals(first.certificate(), presented(tls, ca.certificateFile(), "gw.example"),
                "checked at most once a second");
        time.advance(Duration.ofSeconds(1));
        try (LogCapture log = LogCapture.of(io.trunkgate.tls.internal.ReloadingKeyManager.class)) {
            assertEquals(renewed.certificate(), presented(tls, ca.certificateFile(), "gw.example"));
            assertEquals(List.of("TLS certificate " + first.certificateFile() + " reloaded: CN=gw, expires "
                    + renewed.certificate().getNotAfter().toInstant()), messages(log, Level.INFO));
        }

        // a new certificate whose key is not written with it: the one in use stays
        Issued other = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("other");
        Files.copy(other.certificateFile(), first.certificateFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        time.advance(Duration.ofSeconds(1));
        try (LogCapture log = LogCapture.of(io.trunkgate.tls.internal.ReloadingKeyManager.class)) {
            assertEquals(renewed.certificate(), presented(tls, ca.certificateFile(), "gw.example"));
            time.advance(Duration.ofSeconds(1));
            assertEquals(renewed.certificate(), presented(tls, ca.certificateFile(), "gw.example"));

            List<String> warnings = messages(log, Level.WARN);
            assertEquals(1, warnings.size(), "one warning per distinct failure: " + warnings);
            assertTrue(warnings.get(0).startsWith("TLS certificate " + first.certificateFile() + " changed but does"
                    + " not load, still using the one expiring " + renewed.certificate().getNotAfter().toInstant()
                    + ": " + first.keyFile() + ": does not match the certificate in "), warnings.get(0));
        }
        assertTrue(tls.status().lastReloadError().orElseThrow().contains("does not match the certificate"));
        assertEquals(renewed.certificate().getNotAfter().toInstant(), tls.status().notAfter());

        // the key follows: the pair loads
        Files.copy(other.keyFile(), first.keyFile(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        time.advance(Duration.ofSeconds(1));
        assertEquals(other.certificate(), presented(tls, ca.certificateFile(), "gw.example"));
        assertEquals(Optional.empty(), tls.status().lastReloadError());
    }

    private static List<String> messages(LogCapture log, Level level) {
        return log.events().stream().filter(e -> e.getLevel() == level).map(e -> e.getFormattedMessage()).toList();
    }
}
