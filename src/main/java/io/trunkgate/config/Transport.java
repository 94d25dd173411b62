package io.trunkgate.config;

import java.util.Locale;

/** How SIP messages travel: over UDP datagrams, TCP connections or TLS connections. */
public enum Transport {
    UDP, TCP, TLS;

    public static Transport parse(String text) {
        try {
            return valueOf(text.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("transport must be udp, tcp or tls, not \"" + text + "\"");
        }
    }

    public String sipName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The port a URI or listener of this transport means when it names none (RFC 3261 §19.1.2). */
    public int defaultPort() {
        return this == TLS ? 5061 : 5060;
    }
}
