package io.trunkgate.gateway;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.GroupConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.limit.Admission;
import io.trunkgate.limit.Scope;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.runtime.ConfigReloader;
import io.trunkgate.tls.SipTls;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Swaps in a new, already validated configuration (live reload); calls under way keep the one they started with.
 * Metrics follow the new peers and carriers, peers moved between groups take their Redis state along, and what
 * only a restart changes is said in one line.
 */
final class Reload implements ConfigReloader.Applier {

    private static final Logger log = LoggerFactory.getLogger(Reload.class);

    private final AtomicReference<ActiveConfig> active;
    private final Admission admission;
    private final CarrierPacer pacer;
    private final CarrierHealth health;
    private final CarrierResolver resolver;
    private final SipTls tls;
    private final GatewayMetrics metrics;

    Reload(AtomicReference<ActiveConfig> active, Admission admission, CarrierPacer pacer, CarrierHealth health,
           CarrierResolver resolver, SipTls tls, GatewayMetrics metrics) {
        this.active = active;
        this.admission = admission;
        this.pacer = pacer;
        this.health = health;
        this.resolver = resolver;
        this.tls = tls;
        this.metrics = metrics;
    }

    @Override
    public void apply(GatewayConfig config) throws ConfigException {
        ActiveConfig previous = active.get();
        if (previous.config().admin().token().isPresent() && config.admin().token().isEmpty()) {
            // Most likely a file cut short; live, it would silently open nothing and lock operators out.
            throw new ConfigException(List.of(new ConfigError(config.source(), 0, "admin.token",
                    "the running gateway has an admin token and this configuration has none (a truncated"
                            + " file?); removing the token takes a restart")));
        }
        ActiveConfig next = active.updateAndGet(current -> new ActiveConfig(config, current.generation() + 1));
        trackConfigured(next);
        carryOverMovedPeers(previous.config(), config);
        resolveAhead(resolver, config);
        tls.carriersReloaded();
        if (!restartSettings(previous.config()).equals(restartSettings(config))) {
            log.warn("changes to instance-id, fleet-size, plugins-dir, routing.*, records, dns, sip listeners, threads,"
                    + " queue, limits and tcp, admission.lease-time, redis and the admin server (all but its token)"
                    + " take effect at the next restart");
        }
        log.info("config generation {} active", next.generation());
    }

    /** The per-peer and per-carrier metric series of {@code config}'s peers and carriers. */
    void trackConfigured(ActiveConfig active) {
        GatewayConfig config = active.config();
        metrics.trackCarriers(config.carriers().keySet(), pacer::heldCount);
        metrics.trackCarrierHealth(config.carriers().keySet(), health::isUp);
        metrics.configured(config.peers().keySet(), config.carriers().keySet());
        metrics.shadowLimits(active.shadowLimits());
        metrics.credentialPeers(config.peers().values().stream().filter(PeerConfig::matchedByCredentials)
                .map(PeerConfig::id).toList());
    }

    /** Looks the carriers' host names up now, so that their first calls find the answers waiting. */
    static void resolveAhead(CarrierResolver resolver, GatewayConfig config) {
        config.carriers().values().forEach(carrier -> resolver.resolve(carrier.uri()));
    }

    /**
     * A peer's keys carry its group's hash tag: when a reload moves it into, out of or between groups, its
     * windows, dedupe set, block and lease set are carried over to the new tag, so the fleet neither forgets nor
     * doubles its calls, and its calls in progress keep counting against its max-concurrent.
     */
    private void carryOverMovedPeers(GatewayConfig before, GatewayConfig after) {
        for (PeerConfig peer : after.peers().values()) {
            PeerConfig old = before.peers().get(peer.id());
            if (old != null && !old.group().equals(peer.group())) {
                admission.movePeer(Scope.peer(old.id(), old.limits()), groupScope(before, old.group()),
                                groupScope(after, peer.group()))
                        .whenComplete((done, error) -> {
                            if (error != null) {
                                log.warn("peer {} moved from group {} to {}: its windows and leases were not carried"
                                                + " over: {}",
                                        peer.id(), old.group().orElse("-"), peer.group().orElse("-"), error.toString());
                            }
                        });
            }
        }
    }

    private static Optional<Scope> groupScope(GatewayConfig config, Optional<String> groupId) {
        return groupId.map(id -> Scope.group(id, Optional.ofNullable(config.groups().get(id))
                .map(GroupConfig::limits).orElse(List.of())));
    }

    /**
     * What only a restart changes: what the parts built at start were given (the fleet share of the in-memory
     * fallbacks, the reroute hook, the records file, SIP capture, the SIP stack, Redis, the admin server's address and
     * limits).
     */
    private static List<Object> restartSettings(GatewayConfig config) {
        return List.of(config.instanceId(), config.fleetSize(), config.rerouteHook(), config.reroute(), config.records(),
                config.dns(), config.capture(),
                config.sip().listeners(), config.sip().limits(), config.sip().tcp(), config.redis(),
                config.admission().leaseTime(),
                config.admin().host(), config.admin().port(), config.admin().requestTimeout(),
                config.admin().maxConnections(), config.admin().maxConnectionsPerAddress());
    }
}
