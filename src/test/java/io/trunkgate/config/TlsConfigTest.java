package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import io.trunkgate.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS in the configuration: listeners, sip.tls, carriers over TLS, peers matched by certificate, and mistakes. */
class TlsConfigTest {

    private static final String UDP = "{ transport = udp, host = \"127.0.0.1\", port = 5060 }\n";

    @TempDir
    Path dir;
    private ConfigFiles files;
    private Issued ca;
    private Issued server;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
        TestCertificates certs = new TestCertificates(dir);
        ca = certs.certificate("Test CA").ca().write("ca");
        server = certs.certificate("gw").dns("gw.example").issuedBy(ca).write("chain");
    }

    private void listeners(String... lines) {
        files.write("gateway.conf", "sip.listeners = [\n" + String.join("", lines) + "]\n");
    }

    private Path gateway() {
        return files.path("gateway.conf");
    }

    @Test
    void aTlsListenerWithItsFilesRelativeToTheConfigDirectory() throws Exception {
        listeners(UDP, "{ transport = tls, host = \"0.0.0.0\", certificate = \"chain.pem\", private-key = \"chain.key\"\n"
                + "  client-ca = \"ca.pem\", ciphers = [TLS_AES_128_GCM_SHA256] }\n");

        SipListener tls = files.load(TlsFiles.CHECK).sip().listeners().get(1);

        assertEquals(Transport.TLS, tls.transport());
        assertEquals(5061, tls.port(), "5061 when no port is written");
        assertEquals(new TlsListenerSettings(dir.resolve("chain.pem"), dir.resolve("chain.key"), Optional.empty(),
                List.of("TLS_AES_128_GCM_SHA256"), Optional.of(dir.resolve("ca.pem"))), tls.tls().orElseThrow());
        assertEquals(Duration.ofSeconds(5), files.load().sip().tls().handshakeTimeout());
    }

    @Test
    void anEncryptedKeyWithItsPassword() throws Exception {
        server.encryptedKey("secret.key", "pw");
        listeners("{ transport = tls, host = \"0.0.0.0\", port = 5071, certificate = \"chain.pem\"\n"
                + "  private-key = \"secret.key\", private-key-password = \"pw\" }\n");

        SipListener tls = files.load(TlsFiles.CHECK).sip().listeners().get(0);

        assertEquals(5071, tls.port());
        assertEquals(Optional.of("pw"), tls.tls().orElseThrow().privateKeyPassword());
        assertTrue(!tls.tls().orElseThrow().toString().contains("pw,"), "the password is not printed");
    }

    @Test
    void handshakeTimeout() throws Exception {
        files.write("gateway.conf", "sip.tls { handshake-timeout = 2s }\n");
        assertEquals(new TlsSettings(Duration.ofSeconds(2)), files.load().sip().tls());

        files.write("gateway.conf", "sip.tls.handshake-timeout = 10ms\n");
        assertError(files.errors(), gateway(), 1, "sip.tls.handshake-timeout", "must be at least 100ms");
    }

    @Test
    void listenerMistakesAreReportedByKey() {
        listeners("{ transport = tls, host = \"0.0.0.0\" }\n",
                "{ transport = udp, host = \"0.0.0.0\", certificate = \"chain.pem\", client-ca = \"ca.pem\" }\n",
                "{ transport = tls, host = \"0.0.0.1\", certificate = \"missing.pem\", private-key = \"chain.key\" }\n",
                "{ transport = tls, host = \"0.0.0.2\", certificate = \"chain.pem\", private-key = \"chain.key\"\n"
                        + "  ciphers = [TLS_AES_128_GCM_SHA256, TLS_NO_SUCH_SUITE] }\n",
                "{ transport = tcp, host = \"0.0.0.3\", port = 5061 }\n",
                "{ transport = tls, host = \"0.0.0.3\", certificate = \"chain.pem\", private-key = \"chain.key\" }\n",
                "{ transport = sctp, host = \"0.0.0.4\" }\n");

        List<ConfigError> errors = files.errors(TlsFiles.CHECK);

        assertError(errors, gateway(), 2, "sip.listeners[0].certificate", "required key missing");
        assertError(errors, gateway(), 2, "sip.listeners[0].private-key", "required key missing");
        assertError(errors, gateway(), 3, "sip.listeners[1].certificate", "only a tls listener takes it (this one is udp)");
        assertError(errors, gateway(), 3, "sip.listeners[1].client-ca", "only a tls listener takes it");
        assertError(errors, gateway(), 4, "sip.listeners[2].certificate", "no such file: " + dir.resolve("missing.pem"));
        assertError(errors, gateway(), 6, "sip.listeners[3].ciphers[1]", "unknown cipher suite \"TLS_NO_SUCH_SUITE\"");
        assertError(errors, gateway(), 8, "sip.listeners[5]", "port 5061 of 0.0.0.3 is already taken by the tcp listener");
        assertError(errors, gateway(), 9, "sip.listeners[6].transport", "must be one of udp, tcp, tls");
        assertEquals(8, errors.size(), errors.toString());
    }

    @Test
    void filesThatDoNotLoadAreErrorsAtTheKeyNamingThem() throws Exception {
        Issued other = new TestCertificates(dir).certificate("other").issuedBy(ca).write("other");
        server.encryptedKey("secret.key", "right");
        Files.writeString(dir.resolve("notes.txt"), "hello\n");
        listeners("{ transport = tls, host = \"0.0.0.0\", certificate = \"chain.pem\", private-key = \"other.key\" }\n",
                "{ transport = tls, host = \"0.0.0.1\", certificate = \"chain.pem\", private-key = \"secret.key\"\n"
                        + "  private-key-password = \"wrong\" }\n",
                "{ transport = tls, host = \"0.0.0.2\", certificate = \"notes.txt\", private-key = \"chain.key\" }\n",
                "{ transport = tls, host = \"0.0.0.3\", certificate = \"chain.pem\", private-key = \"chain.key\"\n"
                        + "  client-ca = \"notes.txt\" }\n",
                "{ transport = tls, host = \"0.0.0.4\", certificate = \"chain.pem\", private-key = \"secret.key\" }\n");

        List<ConfigError> errors = files.errors(TlsFiles.CHECK);

        assertError(errors, gateway(), 2, "sip.listeners[0].private-key", other.keyFile()
                + ": does not match the certificate in " + dir.resolve("chain.pem"));
        assertError(errors, gateway(), 4, "sip.listeners[1].private-key-password", dir.resolve("secret.key")
                + ": cannot decrypt the key: wrong private-key-password");
        assertError(errors, gateway(), 5, "sip.listeners[2].certificate", dir.resolve("notes.txt")
                + ": not a PEM file");
        assertError(errors, gateway(), 7, "sip.listeners[3].client-ca", dir.resolve("notes.txt")
                + ": not a PEM file");
        assertError(errors, gateway(), 8, "sip.listeners[4].private-key", dir.resolve("secret.key")
                + ": the key is encrypted and private-key-password is not set");
        assertEquals(5, errors.size(), errors.toString());
    }

    private void tlsListener(String extra) {
        listeners(UDP, "{ transport = tls, host = \"0.0.0.0\", certificate = \"chain.pem\", private-key = \"chain.key\""
                + extra + " }\n");
    }

    private static final String CARRIER = "id = c\ncps = 10\n";

    @Test
    void carriersOverTls() throws Exception {
        tlsListener("");
        files.write("carriers/a.conf", CARRIER.replace("c\n", "a\n") + "uri = \"sips:carrier.example\"\n");
        files.write("carriers/b.conf", CARRIER.replace("c\n", "b\n")
                + "uri = \"sip:carrier.example;transport=tls\"\ntls { ca-file = \"ca.pem\" }\n");
        files.write("carriers/c.conf", CARRIER + "uri = \"sip:carrier.example\"\n");

        GatewayConfig config = files.load(TlsFiles.CHECK);

        assertEquals(Optional.of(CarrierTls.SYSTEM_CAS), config.carriers().get("a").tls());
        assertEquals(5061, config.carriers().get("a").uri().port());
        assertEquals(Optional.of(new CarrierTls(Optional.of(dir.resolve("ca.pem")))), config.carriers().get("b").tls());
        assertEquals(Optional.empty(), config.carriers().get("c").tls());
    }

    @Test
    void carrierTlsMistakes() {
        files.write("gateway.conf", "sip.listeners = [" + UDP + "]\n");
        files.write("carriers/a.conf", "id = a\ncps = 10\nuri = \"sip:carrier.example\"\ntls.ca-file = \"ca.pem\"\n");
        files.write("carriers/b.conf", "id = b\ncps = 10\nuri = \"sips:carrier.example\"\ntls.ca-file = \"notes.txt\"\n");
        files.write("carriers/c.conf", "id = c\ncps = 10\nuri = \"sips:carrier.example\"\ntls.ca-file = \"none.pem\"\n");
        files.write("carriers/d.conf", "id = d\ncps = 10\nuri = \"sips:carrier.example\"\n");
        files.write("notes.txt", "hello\n");

        List<ConfigError> errors = files.errors(TlsFiles.CHECK);

        assertError(errors, files.path("carriers/a.conf"), 4, "tls.ca-file", "only a carrier reached over TLS takes it"
                + " (its uri sip:carrier.example is udp; use sips: or ;transport=tls)");
        assertError(errors, files.path("carriers/b.conf"), 4, "tls.ca-file", dir.resolve("notes.txt")
                + ": not a PEM file");
        assertError(errors, files.path("carriers/c.conf"), 4, "tls.ca-file", "no such file: " + dir.resolve("none.pem"));
        // a carrier over TLS needs a TLS listener to send from
        assertError(errors, files.path("carriers/d.conf"), 1, "uri", "transport tls has no listener in sip.listeners");
        assertEquals(4, errors.size(), errors.toString());
    }

    @Test
    void peersMatchedByCertificate() throws Exception {
        tlsListener(", client-ca = \"ca.pem\"");
        files.write("peers/acme.conf", "id = acme\nmatch.certificates = [\n"
                + "  { sha256 = \"3a9f000000000000000000000000000000000000000000000000000000000001\" }\n"
                + "  { san = \"Trunk.Acme.Example\" }\n  { subject = \"CN=acme trunk, O=Acme\" }\n]\n");
        files.write("peers/globex.conf", "id = globex\nmatch.sources = [\"198.51.100.0/24\"]\n"
                + "match.certificates = [ { sha256 = \"" + server.sha256() + "\" } ]\n");
        files.write("peers/initech.conf", "id = initech\nmatch.sources = [\"198.51.100.0/24\"]\n");

        GatewayConfig config = files.load(TlsFiles.CHECK);

        PeerConfig acme = config.peers().get("acme");
        assertEquals(List.of(), acme.sources());
        assertEquals(List.of(new CertificateMatch.Sha256("3A:9F:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00"
                        + ":00:00:00:00:00:00:00:00:00:00:00:01"),
                new CertificateMatch.SubjectAltName("trunk.acme.example"),
                new CertificateMatch.Subject(new X500Principal("CN=acme trunk,O=Acme"))), acme.certificates());
        assertEquals(List.of(new CertificateMatch.Sha256(server.sha256())), config.peers().get("globex").certificates());
    }

    @Test
    void peerCertificateMistakes() {
        tlsListener("");
        files.write("peers/a.conf", "id = a\n");
        files.write("peers/b.conf", "id = b\nmatch.certificates = []\n");
        files.write("peers/c.conf", "id = c\nmatch.certificates = [\n  { sha256 = \"3A:9F\" }\n"
                + "  { san = \"x.example\", subject = \"CN=x\" }\n  { subject = \"not a name\" }\n  \"x.example\"\n]\n");
        files.write("peers/d.conf", "id = d\nmatch.certificates = [ { sha256 = \"" + server.sha256() + "\" } ]\n");
        files.write("peers/e.conf", "id = e\nmatch.certificates = [ { sha256 = \"" + server.sha256() + "\" } ]\n");
        files.write("peers/f.conf", "id = f\nmatch.certificates = [ { san = \"trunk.f.example\" } ]\n");

        List<ConfigError> errors = files.errors(TlsFiles.CHECK);

        assertError(errors, files.path("peers/a.conf"), 0, "match.sources", "required key missing: a peer is matched by"
                + " match.sources, match.certificates, match.credentials or several of them");
        assertError(errors, files.path("peers/b.conf"), 2, "match.certificates", "must list at least one certificate");
        assertError(errors, files.path("peers/c.conf"), 3, "match.certificates[0].sha256", "must be a SHA-256"
                + " fingerprint: 64 hex digits");
        assertError(errors, files.path("peers/c.conf"), 4, "match.certificates[1]", "must have exactly one of sha256,"
                + " san and subject (got 2)");
        assertError(errors, files.path("peers/c.conf"), 5, "match.certificates[2].subject", "must be a distinguished"
                + " name");
        assertError(errors, files.path("peers/c.conf"), 6, "match.certificates[3]", "expected an object");
        assertError(errors, files.path("peers/e.conf"), 2, "match.certificates[0]", "sha256 " + server.sha256()
                + " is already claimed by the peer in " + files.path("peers/d.conf"));
        assertError(errors, files.path("peers/f.conf"), 1, "match.certificates", "san and subject match only a"
                + " certificate verified against a client CA, and no tls listener in sip.listeners has client-ca");
        assertEquals(8, errors.size(), errors.toString());
    }

    @Test
    void peersMayShareSourcesWhenTheirCertificatesDiffer() {
        tlsListener("");
        String sources = "match.sources = [\"198.51.100.0/24\"]\n";
        files.write("peers/a.conf", "id = a\n" + sources + "match.certificates = [ { sha256 = \"" + ca.sha256() + "\" } ]\n");
        files.write("peers/b.conf", "id = b\n" + sources + "match.certificates = [ { sha256 = \"" + server.sha256()
                + "\" } ]\n");
        files.write("peers/c.conf", "id = c\n" + sources);
        files.write("peers/d.conf", "id = d\n" + sources + "match.certificates = [ { sha256 = \"" + ca.sha256() + "\" } ]\n");

        List<ConfigError> errors = files.errors(TlsFiles.CHECK);

        assertError(errors, files.path("peers/d.conf"), 3, "match.certificates[0]", "198.51.100.0/24 with sha256 "
                + ca.sha256() + " is already claimed by the peer in " + files.path("peers/a.conf"));
        assertEquals(1, errors.size(), errors.toString());
    }
}
