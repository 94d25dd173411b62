package io.trunkgate.config;

import java.util.List;
import java.util.OptionalInt;

/**
 * Limits shared by every peer naming this group (conf/groups/*.conf); they apply on top of each peer's own.
 *
 * @param maxConcurrent the most calls of all the group's peers in progress at once ({@code max-concurrent})
 * @param mode          the file's {@code mode}: its max-concurrent's (its limits carry their own, this by default)
 */
public record GroupConfig(String id, List<Limit> limits, OptionalInt maxConcurrent, LimitMode mode) {
    public GroupConfig {
        limits = List.copyOf(limits);
        mode = mode == null ? LimitMode.ENFORCE : mode;
    }

    public GroupConfig(String id, List<Limit> limits, OptionalInt maxConcurrent) {
        this(id, limits, maxConcurrent, LimitMode.ENFORCE);
    }

    public GroupConfig(String id, List<Limit> limits) {
        this(id, limits, OptionalInt.empty());
    }
}
