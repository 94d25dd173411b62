package io.trunkgate.tls;

import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;

/**
 * The certificate a TLS listener presents now, for the status page, the API and
 * {@code trunkgate_tls_certificate_expiry_seconds}.
 *
 * @param certificate     the certificate file
 * @param subject         the certificate's subject (RFC 2253)
 * @param notAfter        when it expires
 * @param lastReloadError why the last attempt to load a changed file failed (the old certificate is still used);
 *                        empty once a reload succeeds
 */
public record CertificateStatus(Path certificate, String subject, Instant notAfter, Optional<String> lastReloadError) {
}
