package io.trunkgate.config;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;

/**
 * How carrier host names are looked up (RFC 3263: NAPTR, SRV, A/AAAA).
 *
 * @param resolver  the DNS server to ask; empty: the system's (/etc/resolv.conf, and /etc/hosts for A/AAAA)
 * @param timeout   the longest one lookup may take
 * @param keepStale how long, past its TTL, the last good answer for a host is still used while lookups fail
 */
public record DnsSettings(Optional<InetSocketAddress> resolver, Duration timeout, Duration keepStale) {

    public static final DnsSettings SYSTEM = new DnsSettings(Optional.empty(), Duration.ofSeconds(2),
            Duration.ofHours(1));
}
