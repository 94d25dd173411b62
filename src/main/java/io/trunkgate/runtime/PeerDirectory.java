package io.trunkgate.runtime;

import io.trunkgate.config.Cidr;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.PresentedCertificate;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Finds the peer a request comes from, by its source address and, over TLS, its client certificate. A peer whose
 * certificate matches (and, if it lists sources, whose network holds the source) comes first; else the peer whose
 * network holds the source, among those matched by source alone. Among several, the most specific network wins; a
 * peer matched by certificate alone, from any source, is the least specific.
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

    public PeerDirectory(Map<String, PeerConfig> peers) {
        List<Entry> sources = new ArrayList<>();
        List<Entry> certificates = new ArrayList<>();
        for (PeerConfig peer : peers.values()) {
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
}
