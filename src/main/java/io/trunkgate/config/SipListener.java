package io.trunkgate.config;

import java.util.Optional;

/**
 * One SIP listening point of the gateway.
 *
 * @param tls the certificate, key and client-certificate trust of a TLS listener; present exactly when
 *            {@code transport} is TLS
 */
public record SipListener(Transport transport, String host, int port, Optional<TlsListenerSettings> tls) {

    public SipListener {
        if (tls.isPresent() != (transport == Transport.TLS)) {
            throw new IllegalArgumentException("a " + transport.sipName() + " listener "
                    + (tls.isPresent() ? "takes no TLS settings" : "needs its certificate and key"));
        }
    }

    /** A UDP or TCP listener. */
    public SipListener(Transport transport, String host, int port) {
        this(transport, host, port, Optional.empty());
    }

    /** "tls 0.0.0.0:5061", for log lines, labels and messages. */
    public String describe() {
        return transport.sipName() + " " + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }
}
