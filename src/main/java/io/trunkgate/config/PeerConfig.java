package io.trunkgate.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One upstream peer (conf/peers/*.conf): who it is, by source address, TLS client certificate and/or digest
 * credentials, and the limits its INVITEs meet.
 *
 * @param sources       the networks its requests come from; empty = any source (then {@code certificates} or
 *                      {@code credentials} is not)
 * @param certificates  client certificates that identify it; with {@code sources} as well, a request must match
 *                      both; empty = matched without a certificate
 * @param maxConcurrent the most calls of this peer in progress at once, fleet-wide ({@code max-concurrent})
 * @param mode          the file's {@code mode}: its max-concurrent's (its limits carry their own, this by default)
 * @param credentials   the digest credentials its INVITEs must carry ({@code match.credentials}); with
 *                      {@code sources} or {@code certificates} as well, a request must match those too
 */
public record PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                         OptionalInt maxConcurrent, List<CertificateMatch> certificates, LimitMode mode,
                         Optional<PeerCredentials> credentials) {
    public PeerConfig {
        sources = List.copyOf(sources);
        limits = List.copyOf(limits);
        certificates = List.copyOf(certificates);
        mode = mode == null ? LimitMode.ENFORCE : mode;
        if (sources.isEmpty() && certificates.isEmpty() && credentials.isEmpty()) {
            throw new IllegalArgumentException("peer " + id + " has no sources, certificates nor credentials to match");
        }
    }

    /** A peer matched without digest credentials. */
    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                      OptionalInt maxConcurrent, List<CertificateMatch> certificates, LimitMode mode) {
        this(id, sources, group, limits, maxConcurrent, certificates, mode, Optional.empty());
    }

    /** A peer whose max-concurrent is enforced. */
    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                      OptionalInt maxConcurrent, List<CertificateMatch> certificates) {
        this(id, sources, group, limits, maxConcurrent, certificates, LimitMode.ENFORCE);
    }

    /** A peer matched by source address alone. */
    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                      OptionalInt maxConcurrent, LimitMode mode) {
        this(id, sources, group, limits, maxConcurrent, List.of(), mode);
    }

    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                      OptionalInt maxConcurrent) {
        this(id, sources, group, limits, maxConcurrent, List.of(), LimitMode.ENFORCE);
    }

    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits) {
        this(id, sources, group, limits, OptionalInt.empty(), List.of(), LimitMode.ENFORCE);
    }

    /**
     * Whether this peer is matched by any source address at all: its sources cover every IPv4 or IPv6 address and
     * neither a certificate nor credentials are asked for. Such a peer takes in every caller the unknown-source 403
     * would stop, so its file must say {@code allow-any-source = true}.
     */
    public boolean anySource() {
        return certificates.isEmpty() && credentials.isEmpty() && Cidr.coverAFamily(sources);
    }

    /** Whether a TLS client certificate is needed to match this peer. */
    public boolean matchedByCertificate() {
        return !certificates.isEmpty();
    }

    /** Whether its INVITEs must carry its digest credentials. */
    public boolean matchedByCredentials() {
        return credentials.isPresent();
    }

    /** Whether {@code certificate} matches one of {@code certificates}. */
    public boolean certificateMatches(PresentedCertificate certificate) {
        return certificates.stream().anyMatch(match -> match.matches(certificate));
    }
}
