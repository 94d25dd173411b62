package io.trunkgate.config;

import java.util.HexFormat;
import java.util.Locale;
import javax.security.auth.x500.X500Principal;

/**
 * One entry of a peer's {@code match.certificates}: which client certificate identifies the peer.
 * A {@code sha256} pin names one certificate, whoever issued it; a {@code san} or {@code subject} names what any
 * certificate may claim, so it matches only a certificate whose chain verified against the listener's
 * {@code client-ca} (else anyone could make a self-signed certificate with that name).
 */
public sealed interface CertificateMatch
        permits CertificateMatch.Sha256, CertificateMatch.SubjectAltName, CertificateMatch.Subject {

    boolean matches(PresentedCertificate certificate);

    /** Whether it can only match a certificate verified against a listener's {@code client-ca}. */
    boolean needsClientCa();

    /**
     * The certificate whose DER encoding has this SHA-256, while within its validity dates.
     *
     * @param fingerprint 64 hex digits, uppercase, in colon-separated pairs ("3A:9F:...")
     */
    record Sha256(String fingerprint) implements CertificateMatch {

        private static final HexFormat PAIRS = HexFormat.ofDelimiter(":").withUpperCase();

        /** Hex digits with or without colons (as {@code openssl x509 -fingerprint -sha256} prints them), any case. */
        public static Sha256 parse(String text) {
            String digits = text.trim().replace(":", "");
            if (digits.length() != 64 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new IllegalArgumentException("must be a SHA-256 fingerprint: 64 hex digits, in pairs joined by"
                        + " colons or not (got \"" + text + "\")");
            }
            return new Sha256(PAIRS.formatHex(HexFormat.of().parseHex(digits)));
        }

        @Override
        public boolean matches(PresentedCertificate certificate) {
            return certificate.withinValidity() && fingerprint.equals(certificate.sha256());
        }

        @Override
        public boolean needsClientCa() {
            return false;
        }

        @Override
        public String toString() {
            return "sha256 " + fingerprint;
        }
    }

    /**
     * A certificate verified against the client CA whose subjectAltName holds this dNSName, or this URI
     * ("sip:trunk.acme.example"); compared without regard to case.
     */
    record SubjectAltName(String name) implements CertificateMatch {

        public static SubjectAltName parse(String text) {
            String name = text.trim();
            if (name.isEmpty() || name.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException("must be a DNS name or a URI, without spaces (got \"" + text + "\")");
            }
            return new SubjectAltName(name.toLowerCase(Locale.ROOT));
        }

        @Override
        public boolean matches(PresentedCertificate certificate) {
            return certificate.verifiedByClientCa()
                    && certificate.subjectAltNames().stream().anyMatch(name::equalsIgnoreCase);
        }

        @Override
        public boolean needsClientCa() {
            return true;
        }

        @Override
        public String toString() {
            return "san " + name;
        }
    }

    /**
     * A certificate verified against the client CA with this subject, compared as distinguished names (RFC 5280
     * §7.1: attribute order and spacing as written, values without regard to case).
     */
    record Subject(X500Principal principal) implements CertificateMatch {

        public static Subject parse(String text) {
            try {
                return new Subject(new X500Principal(text.trim()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("must be a distinguished name such as \"CN=acme trunk,O=Acme\""
                        + " (got \"" + text + "\")");
            }
        }

        @Override
        public boolean matches(PresentedCertificate certificate) {
            return certificate.verifiedByClientCa() && principal.equals(certificate.subjectPrincipal());
        }

        @Override
        public boolean needsClientCa() {
            return true;
        }

        @Override
        public String toString() {
            return "subject " + principal.getName(X500Principal.RFC2253);
        }
    }
}
