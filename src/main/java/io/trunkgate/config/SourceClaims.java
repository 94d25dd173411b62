package io.trunkgate.config;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What identifies each peer: a source network, a client certificate, or the pair of both; or its digest credentials'
 * user and realm. Each may belong to one peer only; overlapping networks of different sizes are allowed (the most
 * specific one identifies the peer), and two peers may share a network when they are told apart by their
 * certificates or credentials.
 */
final class SourceClaims {

    private record Claim(Optional<Cidr> source, Optional<CertificateMatch> certificate) {
        @Override
        public String toString() {
            String network = source.map(Cidr::toString).orElse("");
            return certificate.map(match -> network.isEmpty() ? match.toString() : network + " with " + match)
                    .orElse(network);
        }
    }

    private final List<ConfigError> errors;
    private final Map<Claim, Location> claimed = new HashMap<>();
    /** By user and realm as digest authentication compares them: the user as written, the realm too. */
    private final Map<List<String>, Location> credentials = new HashMap<>();

    SourceClaims(List<ConfigError> errors) {
        this.errors = errors;
    }

    void claim(Optional<Cidr> source, Optional<CertificateMatch> certificate, Location at) {
        Claim claim = new Claim(source, certificate);
        report(claim.toString(), claimed.putIfAbsent(claim, at), at);
    }

    /** Digest credentials name their peer: the same user in the same realm cannot be two peers'. */
    void claim(PeerCredentials credentials, Location at) {
        report("user \"" + credentials.user() + "\" in realm \"" + credentials.realm() + "\"",
                this.credentials.putIfAbsent(List.of(credentials.user(), credentials.realm()), at), at);
    }

    private void report(String claim, Location first, Location at) {
        if (first == null) {
            return;
        }
        errors.add(at.error(first.file().equals(at.file())
                ? claim + " is listed twice (also at line " + first.line() + ")"
                : claim + " is already claimed by the peer in " + IdIndex.place(first)));
    }
}
