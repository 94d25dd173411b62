package io.trunkgate.config;

import io.trunkgate.limit.Limit;
import java.util.List;
import java.util.Optional;

/** One upstream peer (conf/peers/*.conf): who it is by source address, and the limits its INVITEs meet. */
public record PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits) {
    public PeerConfig {
        sources = List.copyOf(sources);
        limits = List.copyOf(limits);
    }
}
