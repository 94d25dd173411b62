package io.trunkgate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.Cidr;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import io.trunkgate.tls.PeerCertificate;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Which peer a request belongs to, by source address and client certificate. */
class PeerDirectoryTest {

    @TempDir
    Path dir;
    private Issued acme;
    private Issued globex;
    private Issued expired;

    @BeforeEach
    void setUp() {
        TestCertificates certs = new TestCertificates(dir);
        acme = certs.certificate("acme trunk").subject("CN=acme trunk,O=Acme").dns("trunk.acme.example").write("acme");
        globex = certs.certificate("globex").write("globex");
        expired = certs.certificate("old").expired().write("old");
    }

    private static PeerConfig peer(String id, List<String> sources, CertificateMatch... certificates) {
        return new PeerConfig(id, sources.stream().map(Cidr::parse).toList(), Optional.empty(), List.of(),
                OptionalInt.empty(), List.of(certificates));
    }

    private static PeerDirectory directory(PeerConfig... peers) {
        Map<String, PeerConfig> byId = new LinkedHashMap<>();
        for (PeerConfig peer : peers) {
            byId.put(peer.id(), peer);
        }
        return new PeerDirectory(byId);
    }

    private static Optional<PeerCertificate> shown(Issued issued, boolean verifiedByClientCa) {
        return Optional.of(PeerCertificate.of(new X509Certificate[] {issued.certificate()}, verifiedByClientCa,
                Instant.now()));
    }

    private static Optional<String> found(PeerDirectory directory, String source, Optional<PeerCertificate> cert)
            throws Exception {
        return directory.find(InetAddress.getByName(source), cert).map(PeerConfig::id);
    }

    @Test
    void bySourceAloneTheMostSpecificNetworkWins() throws Exception {
        PeerDirectory directory = directory(peer("wide", List.of("198.51.100.0/24")),
                peer("narrow", List.of("198.51.100.7")));

        assertEquals(Optional.of("narrow"), directory.find(InetAddress.getByName("198.51.100.7")).map(PeerConfig::id));
        assertEquals(Optional.of("wide"), found(directory, "198.51.100.8", shown(acme, true)));
        assertEquals(Optional.empty(), found(directory, "203.0.113.1", Optional.empty()));
    }

    @Test
    void aPeerMatchedByCertificateAloneIsFoundFromAnySourceButNeverWithoutIt() throws Exception {
        PeerDirectory directory = directory(peer("acme", List.of(), new CertificateMatch.Sha256(acme.sha256())));

        assertEquals(Optional.of("acme"), found(directory, "203.0.113.1", shown(acme, false)));
        assertEquals(Optional.of("acme"), found(directory, "2001:db8::1", shown(acme, false)));
        assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(globex, true)));
        assertEquals(Optional.empty(), found(directory, "203.0.113.1", Optional.empty()));
        assertEquals(Optional.empty(), directory.find(InetAddress.getByName("203.0.113.1")));
    }

    @Test
    void aPinnedCertificateOutsideItsValidityMatchesNothing() throws Exception {
        PeerDirectory directory = directory(peer("old", List.of(), new CertificateMatch.Sha256(expired.sha256())));

        assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(expired, true)));
    }

    @Test
    void sanAndSubjectMatchOnlyACertificateVerifiedAgainstTheClientCa() throws Exception {
        PeerDirectory bySan = directory(peer("acme", List.of(),
                CertificateMatch.SubjectAltName.parse("TRUNK.acme.example")));
        PeerDirectory bySubject = directory(peer("acme", List.of(),
                new CertificateMatch.Subject(new X500Principal("cn=Acme Trunk, o=ACME"))));

        for (PeerDirectory directory : List.of(bySan, bySubject)) {
            assertEquals(Optional.of("acme"), found(directory, "203.0.113.1", shown(acme, true)));
            assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(acme, false)),
                    "a self-made certificate may claim any name");
            assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(globex, true)));
        }
    }

    @Test
    void withSourcesAndCertificatesBothMustMatch() throws Exception {
        PeerDirectory directory = directory(
                peer("acme", List.of("198.51.100.0/24"), new CertificateMatch.Sha256(acme.sha256())));

        assertEquals(Optional.of("acme"), found(directory, "198.51.100.9", shown(acme, false)));
        assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(acme, false)));
        assertEquals(Optional.empty(), found(directory, "198.51.100.9", Optional.empty()));
        assertEquals(Optional.empty(), found(directory, "198.51.100.9", shown(globex, false)));
    }

    @Test
    void peersSharingANetworkAreToldApartByCertificate() throws Exception {
        PeerDirectory directory = directory(
                peer("acme", List.of("198.51.100.0/24"), new CertificateMatch.Sha256(acme.sha256())),
                peer("globex", List.of("198.51.100.0/24"), new CertificateMatch.Sha256(globex.sha256())),
                peer("anyone-there", List.of("198.51.100.0/24")),
                peer("roaming", List.of(), new CertificateMatch.Sha256(expired.sha256()),
                        CertificateMatch.SubjectAltName.parse("trunk.acme.example")));

        assertEquals(Optional.of("acme"), found(directory, "198.51.100.9", shown(acme, true)),
                "the peer with the network and the certificate before the one with the certificate alone");
        assertEquals(Optional.of("globex"), found(directory, "198.51.100.9", shown(globex, false)));
        assertEquals(Optional.of("anyone-there"), found(directory, "198.51.100.9", Optional.empty()));
        assertEquals(Optional.of("roaming"), found(directory, "203.0.113.1", shown(acme, true)));
        assertEquals(Optional.empty(), found(directory, "203.0.113.1", shown(acme, false)));
    }
}
