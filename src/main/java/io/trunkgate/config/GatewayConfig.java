package io.trunkgate.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the gateway runs on: gateway.conf plus every peer, group and carrier file and routes.conf,
 * validated. Immutable; a reload builds a new one.
 *
 * @param source     the gateway.conf it was loaded from
 * @param instanceId this instance's name in logs and metrics
 * @param fleetSize  how many instances share the limits (the in-memory share under the {@code local} policy)
 * @param sipWorkerThreads JAIN-SIP's worker pool size
 * @param maxCallsInProgress INVITEs this instance handles at once (held, admitting or at a carrier);
 *                           beyond it new INVITEs are answered 503 at once
 * @param rerouteHook class name of the {@link io.trunkgate.route.RerouteHook} to use, if not the default
 */
public record GatewayConfig(Path source, String instanceId, int fleetSize, List<SipListener> listeners,
                            RedisSettings redis, AdmissionSettings admission, AdminSettings admin,
                            Map<String, PeerConfig> peers, Map<String, GroupConfig> groups,
                            Map<String, CarrierConfig> carriers, List<RouteConfig> routes,
                            int sipWorkerThreads, int maxCallsInProgress, Optional<String> rerouteHook) {
    public GatewayConfig {
        listeners = List.copyOf(listeners);
        peers = Map.copyOf(peers);
        groups = Map.copyOf(groups);
        carriers = Map.copyOf(carriers);
        routes = List.copyOf(routes);
    }
}
