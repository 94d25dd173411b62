package io.trunkgate.dns;

import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.SipUri;
import io.trunkgate.dns.internal.CachingResolver;
import io.trunkgate.dns.internal.Rfc3263Lookup;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Where a carrier's URI leads: its host name looked up per RFC 3263 (NAPTR, SRV, A/AAAA), answers kept for
 * their TTL; an IP address needs no lookup. Thread-safe; never blocks (lookups complete on dnsjava's thread).
 */
public interface CarrierResolver {

    /**
     * The URI's targets: from the cache while its answer is fresh, else looked up. A failed lookup completes with
     * the last good answer while it is no older than {@code dns.keep-stale} past its TTL, else exceptionally with
     * {@link UnresolvedException}.
     */
    CompletionStage<CarrierTargets> resolve(SipUri uri);

    /** The last answer for the URI, however old, without a lookup; empty if there never was one. */
    Optional<CarrierTargets> known(SipUri uri);

    /**
     * Since when the URI's host name does not resolve and no earlier answer is used in its place: the lookup that
     * failed first; empty while it resolves, or before its first lookup, and always for an IP address.
     */
    Optional<Instant> unresolvedSince(SipUri uri);

    /** Lookups through {@code settings}' resolver; the cache's time comes from {@code clock}. */
    static CarrierResolver open(DnsSettings settings, Clock clock) {
        return new CachingResolver(new Rfc3263Lookup(settings), settings.keepStale(), clock);
    }

    /**
     * A fresh lookup at every {@link #resolve}, nothing kept and nothing logged ({@link #known} is always empty):
     * for checking a configuration.
     */
    static CarrierResolver uncached(DnsSettings settings) {
        Rfc3263Lookup lookup = new Rfc3263Lookup(settings);
        return new CarrierResolver() {
            @Override
            public CompletionStage<CarrierTargets> resolve(SipUri uri) {
                return lookup.lookup(uri);
            }

            @Override
            public Optional<CarrierTargets> known(SipUri uri) {
                return Optional.empty();
            }

            @Override
            public Optional<Instant> unresolvedSince(SipUri uri) {
                return Optional.empty();
            }
        };
    }
}
