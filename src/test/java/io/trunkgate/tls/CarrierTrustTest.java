package io.trunkgate.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Builder;
import io.trunkgate.testing.TestCertificates.Issued;
import io.trunkgate.testing.TlsHandshake;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gateway's trust in carriers over real handshakes: the chain verified against the system CAs or a CA file, the
 * name checked as RFC 5922 §7 says, and each refusal saying why.
 */
class CarrierTrustTest {

    @TempDir
    Path dir;
    private TestCertificates certs;
    private Issued ca;
    private int files;

    @BeforeEach
    void setUp() {
        certs = new TestCertificates(dir);
        ca = certs.certificate("Carrier CA").ca().write("ca");
    }

    /** A carrier serving the certificate {@code spec} makes, reached as {@code host}, trusting {@code caFile}. */
    private void connect(Builder spec, String host, Optional<Path> caFile) throws Exception {
        Issued carrier = spec.write("carrier-" + files++);
        ServerTls server = ServerTls.load(new TlsListenerSettings(carrier.certificateFile(), carrier.keyFile(),
                Optional.empty(), List.of(), Optional.empty()), Clock.systemUTC());
        SSLEngine client = CarrierTrust.clientContext(caFile, Optional.empty()).createSSLEngine(host, 5061);
        client.setSSLParameters(CarrierTrust.clientParameters());
        SSLEngine engine = server.context().createSSLEngine();
        engine.setSSLParameters(server.serverParameters());
        TlsHandshake.handshake(client, engine);
    }

    private void accepted(Builder spec, String host) throws Exception {
        connect(spec, host, Optional.of(ca.certificateFile()));
    }

    /** The message of the CertificateException that failed the handshake. */
    private String refused(Builder spec, String host, Optional<Path> caFile) {
        SSLHandshakeException e = assertThrows(SSLHandshakeException.class, () -> connect(spec, host, caFile));
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof CertificateException) {
                return cause.getMessage();
            }
        }
        throw new AssertionError("no CertificateException behind " + e, e);
    }

    private String refused(Builder spec, String host) {
        return refused(spec, host, Optional.of(ca.certificateFile()));
    }

    private Builder issued(String cn) {
        return certs.certificate(cn).issuedBy(ca);
    }

    @Test
    void aDnsNameMatchesWholeAndWithoutRegardToCase() throws Exception {
        accepted(issued("c").dns("carrier.example"), "carrier.example");
        accepted(issued("c").dns("Carrier.EXAMPLE"), "carrier.example");
        accepted(issued("c").dns("other.example", "carrier.example"), "carrier.example");
    }

    @Test
    void aNameOfAnotherHostIsAMismatch() {
        assertEquals("certificate for carrier.example: name mismatch, certificate names [other.example] (RFC 5922:"
                + " sip URIs, else DNS names, no wildcards)", refused(issued("c").dns("other.example"), "carrier.example"));
    }

    @Test
    void noSuffixAndNoWildcardMatches() {
        assertTrue(refused(issued("c").dns("example"), "carrier.example").contains("name mismatch"));
        assertTrue(refused(issued("c").dns("*.carrier.example"), "sip.carrier.example")
                .contains("name mismatch, certificate names [*.carrier.example]"));
        assertTrue(refused(issued("c").dns(".carrier.example"), "sip.carrier.example").contains("name mismatch"));
    }

    @Test
    void sipUrisAreTheIdentitiesWhenThereAreAny() throws Exception {
        accepted(issued("c").uri("sip:carrier.example"), "carrier.example");
        accepted(issued("c").uri("sip:carrier.example:5061;transport=tls"), "carrier.example");
        // with a sip URI present, dNSName entries are not identities (§7.1)
        assertTrue(refused(issued("c").uri("sip:other.example").dns("carrier.example"), "carrier.example")
                .contains("certificate names [other.example]"));
        // a URI with a user part names a user, not a domain; sips: and other schemes name nothing
        assertTrue(refused(issued("c").uri("sip:alice@carrier.example"), "carrier.example")
                .contains("certificate names []"));
        assertTrue(refused(issued("c").uri("sips:carrier.example"), "carrier.example").contains("name mismatch"));
        accepted(issued("c").uri("https://carrier.example/", "sip:alice@carrier.example").dns("carrier.example"),
                "carrier.example");
    }

    @Test
    void theCommonNameCountsOnlyWithoutSubjectAltName() throws Exception {
        accepted(issued("carrier.example"), "carrier.example");
        assertTrue(refused(issued("carrier.example").dns("other.example"), "carrier.example")
                .contains("certificate names [other.example]"));
        assertTrue(refused(issued("carrier.example").ip("192.0.2.1"), "carrier.example")
                .contains("certificate names []"));
    }

    @Test
    void anAddressMatchesOnlyAnIpAddressEntry() throws Exception {
        accepted(issued("c").ip("127.0.0.1"), "127.0.0.1");
        accepted(issued("c").ip("::1"), "0:0:0:0:0:0:0:1");
        assertTrue(refused(issued("c").dns("127.0.0.1"), "127.0.0.1").contains("name mismatch, certificate names []"));
        assertTrue(refused(issued("127.0.0.1"), "127.0.0.1").contains("name mismatch"));
        assertTrue(refused(issued("c").ip("127.0.0.2"), "127.0.0.1")
                .contains("name mismatch, certificate names [127.0.0.2]"));
    }

    @Test
    void anExpiredCertificateIsRefusedAsExpired() {
        assertTrue(refused(issued("c").dns("carrier.example").expired(), "carrier.example")
                .startsWith("certificate for carrier.example: expired on "));
    }

    @Test
    void aSelfSignedCertificateIsNotTrusted() {
        assertEquals("certificate for carrier.example: self-signed (CN=c), not trusted",
                refused(certs.certificate("c").dns("carrier.example"), "carrier.example"));
    }

    @Test
    void aCertificateOfAnotherCaIsNotTrusted() {
        Issued otherCa = certs.certificate("Other CA").ca().write("other-ca");

        assertEquals("certificate for carrier.example: issued by CN=Other CA, which is not among "
                + ca.certificateFile(), refused(certs.certificate("c").dns("carrier.example").issuedBy(otherCa),
                "carrier.example"));
    }

    @Test
    void withoutACaFileTheSystemCasDecide() {
        assertEquals("certificate for carrier.example: issued by CN=Carrier CA, which is not among the system CAs",
                refused(issued("c").dns("carrier.example"), "carrier.example", Optional.empty()));
    }

    @Test
    void aChainThroughAnIntermediateVerifies() throws Exception {
        Issued intermediate = certs.certificate("Intermediate").ca().issuedBy(ca).write("intermediate");

        accepted(certs.certificate("c").dns("carrier.example").issuedBy(intermediate), "carrier.example");
    }

    @Test
    void aCaFileThatIsNotPemIsAMaterialError() throws Exception {
        Path der = Files.write(dir.resolve("ca.der"), ca.certificate().getEncoded());
        Path empty = Files.writeString(dir.resolve("empty.pem"), "");

        TlsMaterialException binary = assertThrows(TlsMaterialException.class,
                () -> CarrierTrust.clientContext(Optional.of(der), Optional.empty()));
        assertTrue(binary.getMessage().startsWith(der + ": not a PEM file"), binary.getMessage());
        TlsMaterialException nothing = assertThrows(TlsMaterialException.class,
                () -> CarrierTrust.clientContext(Optional.of(empty), Optional.empty()));
        assertEquals(empty + ": not a PEM file: no \"-----BEGIN ...-----\" block in it", nothing.getMessage());
    }
}
