package io.trunkgate.config;

import java.util.List;

/** One entry of conf/routes.conf: numbers starting with {@code prefix} go to {@code carriers}, in order. */
public record RouteConfig(String prefix, List<String> carriers) {
    public RouteConfig {
        carriers = List.copyOf(carriers);
    }
}
