package io.trunkgate.config;

import io.trunkgate.limit.Limit;
import java.util.List;

/** Limits shared by every peer naming this group (conf/groups/*.conf); they apply on top of each peer's own. */
public record GroupConfig(String id, List<Limit> limits) {
    public GroupConfig {
        limits = List.copyOf(limits);
    }
}
