package io.trunkgate.runtime;

import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.GroupConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WouldRefuse;
import io.trunkgate.route.RouteTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One generation of configuration with the lookups built from it. Calls take the generation current when
 * they arrive and keep it, so a reload never changes a decision already under way.
 */
public final class ActiveConfig {

    private final GatewayConfig config;
    private final long generation;
    private final PeerDirectory peers;
    private final RouteTable routes;
    private final Map<String, Scope> peerScopes = new HashMap<>();
    private final Map<String, Scope> groupScopes = new HashMap<>();

    public ActiveConfig(GatewayConfig config, long generation) {
        this.config = config;
        this.generation = generation;
        this.peers = new PeerDirectory(config.peers());
        this.routes = new RouteTable(config.routes(), config.carriers());
        for (PeerConfig peer : config.peers().values()) {
            peerScopes.put(peer.id(), Scope.peer(peer.id(), peer.limits()).withMaxConcurrent(peer.maxConcurrent(), peer.mode()));
        }
        for (GroupConfig group : config.groups().values()) {
            groupScopes.put(group.id(),
                    Scope.group(group.id(), group.limits()).withMaxConcurrent(group.maxConcurrent(), group.mode()));
        }
    }

    public GatewayConfig config() {
        return config;
    }

    public long generation() {
        return generation;
    }

    /**
     * A configuration whose calls get no call log line each, generation 0: the start-up warm-up's, whose thousands
     * of calls are not traffic (the warm-up logs one line for all of them).
     */
    public static ActiveConfig unlogged(GatewayConfig config) {
        return new ActiveConfig(config, 0);
    }

    /** Whether each call under this configuration gets its line in the call log (all but {@link #unlogged}). */
    public boolean logsEachCall() {
        return generation != 0;
    }

    public PeerDirectory peers() {
        return peers;
    }

    public RouteTable routes() {
        return routes;
    }

    public Scope peerScope(PeerConfig peer) {
        return peerScopes.get(peer.id());
    }

    public Optional<Scope> groupScope(PeerConfig peer) {
        return peer.group().map(groupScopes::get);
    }

    /**
     * Per peer, the shadow limits and caps its calls meet (its own and its group's), as {@link WouldRefuse#label}s:
     * the series of trunkgate_calls_would_refuse_total.
     */
    public Map<String, List<String>> shadowLimits() {
        Map<String, List<String>> labels = new HashMap<>();
        for (PeerConfig peer : config.peers().values()) {
            List<String> shadow = new ArrayList<>();
            for (Scope scope : admissionRequest(peer, "-").scopes()) {
                scope.limits().stream().filter(Limit::shadow)
                        .forEach(limit -> shadow.add(new WouldRefuse(scope, Optional.of(limit)).label()));
                if (scope.maxConcurrent().isPresent() && scope.shadowCap()) {
                    shadow.add(new WouldRefuse(scope, Optional.empty()).label());
                }
            }
            labels.put(peer.id(), shadow);
        }
        return labels;
    }

    /** One call of {@code peer} to admit against its own and its group's limits. */
    public AdmissionRequest admissionRequest(PeerConfig peer, String callKey) {
        return new AdmissionRequest(callKey, 1, peerScope(peer), groupScope(peer));
    }
}
