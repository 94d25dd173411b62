package io.trunkgate.runtime;

import io.trunkgate.config.Cidr;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.PresentedCertificate;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds the peer a request comes from, by its source address and, over TLS, its client certificate. A peer whose
 * certificate matches (and, if it lists sources, whose network holds the source) comes first; else the peer whose
 * network holds the source, among those matched by source alone. Among several, the most specific network wins; a
 * peer matched by certificate alone, from any source, is the least specific. Peers with digest credentials are
 * never found so: their INVITEs name them by their credentials ({@link #byCredentials}), checked by the caller,
 * and are accepted only from where their sources and certificates, if they list any, say.
 */
public final class PeerDirectory {

    /** @param network empty for a peer matched by its certificate from any source */
    private record Entry(Optional<Cidr> network, PeerConfig peer) {
        int prefixLength() {
            return network.map(Cidr::prefixLength).orElse(-1);
        }

        boolean holds(InetAddress source) {
            return network.map(cidr -> cidr.contains(source)).orElse(true);
        }
    }

    private final List<Entry> bySource;
    private final List<Entry> byCertificate;
    /** Peers with credentials by user and realm; in id order, so challenges list their realms alike everywhere. */
    private final Map<List<String>, PeerConfig> byCredentials;
    private final List<PeerConfig> withCredentials;
    private final Set<String> realms;

    public PeerDirectory(Map<String, PeerConfig> peers) {
        List<Entry> sources = new ArrayList<>();
        List<Entry> certificates = new ArrayList<>();
        Map<List<String>, PeerConfig> credentials = new HashMap<>();
        List<PeerConfig> credentialPeers = new ArrayList<>();
        for (PeerConfig peer : peers.values()) {
            if (peer.credentials().isPresent()) {
                PeerCredentials c = peer.credentials().get();
                credentials.put(List.of(c.user(), c.realm()), peer);
                credentialPeers.add(peer);
                continue;
            }
            List<Entry> list = peer.matchedByCertificate() ? certificates : sources;
            peer.sources().forEach(cidr -> list.add(new Entry(Optional.of(cidr), peer)));
            if (peer.sources().isEmpty()) {
                list.add(new Entry(Optional.empty(), peer));
            }
        }
        Comparator<Entry> mostSpecificFirst = Comparator.comparingInt(Entry::prefixLength).reversed();
        sources.sort(mostSpecificFirst);
        certificates.sort(mostSpecificFirst);
        this.bySource = List.copyOf(sources);
        this.byCertificate = List.copyOf(certificates);
        this.byCredentials = Map.copyOf(credentials);
        credentialPeers.sort(Comparator.comparing(PeerConfig::id));
        this.withCredentials = List.copyOf(credentialPeers);
        this.realms = credentialPeers.stream().map(peer -> peer.credentials().get().realm())
                .collect(Collectors.toUnmodifiableSet());
    }

    /** The peer of a request without a client certificate (UDP, TCP, or TLS without one). */
    public Optional<PeerConfig> find(InetAddress source) {
        return find(source, Optional.empty());
    }

    /**
     * The peer of a request from {@code source} whose connection presented {@code certificate}: a peer listing
     * certificates only when one of them matches; a peer listing sources only when its network holds the source.
     */
    public Optional<PeerConfig> find(InetAddress source, Optional<? extends PresentedCertificate> certificate) {
        if (certificate.isPresent()) {
            for (Entry entry : byCertificate) {
                if (entry.holds(source) && entry.peer().certificateMatches(certificate.get())) {
                    return Optional.of(entry.peer());
                }
            }
        }
        for (Entry entry : bySource) {
            if (entry.holds(source)) {
                return Optional.of(entry.peer());
            }
        }
        return Optional.empty();
    }

    /** The peer whose {@code match.credentials} are {@code user} in {@code realm} (compared as written). */
    public Optional<PeerConfig> byCredentials(String user, String realm) {
        return Optional.ofNullable(byCredentials.get(List.of(user, realm)));
    }

    /**
     * The peer with credentials whose id is {@code id}, if it may call from {@code source} without a certificate: the
     * peer a recorded call authenticated as (what-if replays calls by their source, which names no such peer).
     */
    public Optional<PeerConfig> withCredentials(String id, InetAddress source) {
        return withCredentials.stream().filter(peer -> peer.id().equals(id)
                && accepts(peer, source, Optional.empty())).findFirst();
    }

    /** Whether {@code realm} is the realm of some peer's credentials: credentials for another are not the gateway's. */
    public boolean isRealm(String realm) {
        return realms.contains(realm);
    }

    /**
     * The peers with credentials that may call from {@code source} with {@code certificate}: those whose sources, if
     * they list any, hold it, and whose certificates, if they list any, match. An INVITE from there without valid
     * credentials is challenged for theirs; none: it is a stranger's.
     */
    public List<PeerConfig> challengeable(InetAddress source, Optional<? extends PresentedCertificate> certificate) {
        return withCredentials.stream().filter(peer -> accepts(peer, source, certificate)).toList();
    }

    /** Whether the sources and certificates of {@code peer} let it call from {@code source} with {@code certificate}. */
    public static boolean accepts(PeerConfig peer, InetAddress source,
                                  Optional<? extends PresentedCertificate> certificate) {
        return (peer.sources().isEmpty() || peer.sources().stream().anyMatch(cidr -> cidr.contains(source)))
                && (peer.certificates().isEmpty() || certificate.filter(peer::certificateMatches).isPresent());
    }
}
