package io.trunkgate.config;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One upstream peer (conf/peers/*.conf): who it is by source address, and the limits its INVITEs meet.
 *
 * @param maxConcurrent the most calls of this peer in progress at once, fleet-wide ({@code max-concurrent})
 * @param mode          the file's {@code mode}: its max-concurrent's (its limits carry their own, this by default)
 */
public record PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                         OptionalInt maxConcurrent, LimitMode mode) {
    public PeerConfig {
        sources = List.copyOf(sources);
        limits = List.copyOf(limits);
        mode = mode == null ? LimitMode.ENFORCE : mode;
    }

    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits,
                      OptionalInt maxConcurrent) {
        this(id, sources, group, limits, maxConcurrent, LimitMode.ENFORCE);
    }

    public PeerConfig(String id, List<Cidr> sources, Optional<String> group, List<Limit> limits) {
        this(id, sources, group, limits, OptionalInt.empty());
    }
}
