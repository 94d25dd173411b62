package io.trunkgate.runtime;

import io.trunkgate.config.Cidr;
import io.trunkgate.config.PeerConfig;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Finds the peer an INVITE comes from by its source address; the most specific network wins. */
public final class PeerDirectory {

    private record Entry(Cidr network, PeerConfig peer) {
    }

    private final List<Entry> entries;

    public PeerDirectory(Map<String, PeerConfig> peers) {
        List<Entry> all = new ArrayList<>();
        peers.values().forEach(peer -> peer.sources().forEach(cidr -> all.add(new Entry(cidr, peer))));
        all.sort(Comparator.comparingInt((Entry e) -> e.network().prefixLength()).reversed());
        this.entries = List.copyOf(all);
    }

    public Optional<PeerConfig> find(InetAddress source) {
        for (Entry entry : entries) {
            if (entry.network().contains(source)) {
                return Optional.of(entry.peer());
            }
        }
        return Optional.empty();
    }
}
