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
 * @param sip        the SIP listeners and the load the instance takes
 * @param rerouteHook class name of the {@link io.trunkgate.route.RerouteHook} to use, if not the default
 * @param records    where call records are written
 * @param reroute    plugin jars and the HTTP reroute hook
 * @param dns        how carrier host names are looked up
 * @param capture    the Homer collector every SIP message is copied to (HEP), if any
 */
public record GatewayConfig(Path source, String instanceId, int fleetSize, SipSettings sip,
                            RedisSettings redis, AdmissionSettings admission, AdminSettings admin,
                            Map<String, PeerConfig> peers, Map<String, GroupConfig> groups,
                            Map<String, CarrierConfig> carriers, List<RouteConfig> routes,
                            Optional<String> rerouteHook, CallRecordSettings records, RerouteSettings reroute,
                            DnsSettings dns, Optional<CaptureSettings> capture) {
    public GatewayConfig {
        peers = Map.copyOf(peers);
        groups = Map.copyOf(groups);
        carriers = Map.copyOf(carriers);
        routes = List.copyOf(routes);
    }
}
