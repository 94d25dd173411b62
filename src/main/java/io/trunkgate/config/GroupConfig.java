package io.trunkgate.config;

import java.util.List;
import java.util.OptionalInt;

/**
 * Limits shared by every peer naming this group (conf/groups/*.conf); they apply on top of each peer's own.
 *
 * @param maxConcurrent the most calls of all the group's peers in progress at once ({@code max-concurrent})
 */
public record GroupConfig(String id, List<Limit> limits, OptionalInt maxConcurrent) {
    public GroupConfig {
        limits = List.copyOf(limits);
    }

    public GroupConfig(String id, List<Limit> limits) {
        this(id, limits, OptionalInt.empty());
    }
}
