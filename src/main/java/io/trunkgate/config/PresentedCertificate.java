package io.trunkgate.config;

import java.util.List;
import javax.security.auth.x500.X500Principal;

/**
 * What a peer's TLS client certificate shows, as far as {@link CertificateMatch} looks at it. Implemented by
 * {@code io.trunkgate.tls.PeerCertificate}, which reads it from a TLS session; an interface here because the
 * configuration sits below the TLS code.
 */
public interface PresentedCertificate {

    /** SHA-256 of the certificate's DER encoding: uppercase hex pairs joined by colons. */
    String sha256();

    X500Principal subjectPrincipal();

    /** The dNSName entries and URI entries of its subjectAltName, as written. */
    List<String> subjectAltNames();

    /** Whether its chain verified against the listener's {@code client-ca}. */
    boolean verifiedByClientCa();

    /** Whether the time of the handshake was within its notBefore..notAfter. */
    boolean withinValidity();
}
