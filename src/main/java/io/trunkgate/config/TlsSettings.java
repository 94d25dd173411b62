package io.trunkgate.config;

import java.time.Duration;

/**
 * Gateway-wide settings of SIP over TLS ({@code sip.tls}). The connection caps and timeouts of {@code sip.tcp}
 * apply to TLS connections too.
 *
 * @param handshakeTimeout a connection whose TLS handshake has not finished within this is closed
 */
public record TlsSettings(Duration handshakeTimeout) {

    public static final TlsSettings DEFAULTS = new TlsSettings(Duration.ofSeconds(5));
}
