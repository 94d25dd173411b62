package io.trunkgate.tls;

import io.trunkgate.config.PresentedCertificate;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import javax.security.auth.x500.X500Principal;

/** The certificate a TLS client (a peer) presented, as peers are matched by it. */
public final class PeerCertificate implements PresentedCertificate {

    private static final int DNS_NAME = 2;
    private static final int URI = 6;

    private final String sha256;
    private final X500Principal subject;
    private final List<String> subjectAltNames;
    private final boolean verifiedByClientCa;
    private final boolean withinValidity;

    private PeerCertificate(String sha256, X500Principal subject, List<String> subjectAltNames,
                            boolean verifiedByClientCa, boolean withinValidity) {
        this.sha256 = sha256;
        this.subject = subject;
        this.subjectAltNames = List.copyOf(subjectAltNames);
        this.verifiedByClientCa = verifiedByClientCa;
        this.withinValidity = withinValidity;
    }

    /**
     * @param chain              the client's chain, its own certificate first
     * @param verifiedByClientCa whether the chain verified against the listener's client CA
     * @param now                the time its validity dates are checked at
     */
    public static PeerCertificate of(X509Certificate[] chain, boolean verifiedByClientCa, Instant now) {
        if (chain == null || chain.length == 0) {
            throw new IllegalArgumentException("no certificate");
        }
        X509Certificate leaf = chain[0];
        boolean within = !now.isBefore(leaf.getNotBefore().toInstant()) && !now.isAfter(leaf.getNotAfter().toInstant());
        return new PeerCertificate(sha256(leaf), leaf.getSubjectX500Principal(), dnsAndUriNames(leaf),
                verifiedByClientCa, within);
    }

    /** SHA-256 of the certificate's DER encoding, uppercase hex pairs joined by colons (as openssl prints it). */
    public static String sha256(X509Certificate certificate) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded());
            return HexFormat.ofDelimiter(":").withUpperCase().formatHex(digest);
        } catch (NoSuchAlgorithmException | CertificateEncodingException e) {
            throw new IllegalStateException("cannot fingerprint a certificate", e);
        }
    }

    /** The dNSName and URI entries of the certificate's subjectAltName, as written. */
    static List<String> dnsAndUriNames(X509Certificate certificate) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> entries = certificate.getSubjectAlternativeNames();
            if (entries != null) {
                for (List<?> entry : entries) {
                    int type = (Integer) entry.get(0);
                    if ((type == DNS_NAME || type == URI) && entry.get(1) instanceof String name) {
                        names.add(name);
                    }
                }
            }
        } catch (CertificateParsingException e) {
            // a subjectAltName the JDK cannot parse offers no name to match
        }
        return names;
    }

    @Override
    public String sha256() {
        return sha256;
    }

    /** The subject, RFC 2253. */
    public String subject() {
        return subject.getName(X500Principal.RFC2253);
    }

    @Override
    public X500Principal subjectPrincipal() {
        return subject;
    }

    @Override
    public List<String> subjectAltNames() {
        return subjectAltNames;
    }

    @Override
    public boolean verifiedByClientCa() {
        return verifiedByClientCa;
    }

    @Override
    public boolean withinValidity() {
        return withinValidity;
    }

    /** "CN=acme trunk,O=Acme (sha256 3A:9F:12:04...)", for log lines. */
    @Override
    public String toString() {
        return subject() + " (sha256 " + sha256.substring(0, 11) + "...)";
    }
}
