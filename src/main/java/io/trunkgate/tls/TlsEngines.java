package io.trunkgate.tls;

import javax.net.ssl.SSLSession;
import java.util.Optional;
import io.trunkgate.config.PresentedCertificate;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import javax.net.ssl.SSLEngine;

/**
 * Where a TLS listener gets the engines of its connections: the gateway's certificates, its protocols and ciphers,
 * and the trust it puts in each carrier. Engines are made per connection, so a renewed certificate or a reloaded
 * carrier applies to the next handshake.
 */
public interface TlsEngines {

    /** A server-mode engine for a connection a caller opened to the TLS listener at {@code listener}. */
    SSLEngine accepted(InetSocketAddress listener);

    /**
     * A client-mode engine for a connection the gateway opens to {@code target}: the server name it sends (SNI) and
     * the name the carrier's certificate must carry are those of the carrier sent there.
     *
     * @throws IOException the trust to put in that carrier cannot be read (its CA file is gone)
     */
    SSLEngine connecting(InetSocketAddress target) throws IOException;

    /** The client certificate {@code session}'s caller presented, if any, as peers are matched by it. */
    Optional<PresentedCertificate> callerCertificate(SSLSession session);

    /** How long a connection may take to finish its handshake before it is closed. */
    Duration handshakeTimeout();
}
