package io.trunkgate.health.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.ProbeSender;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives the health checks on a timer: every carrier with a {@code probe} block gets an OPTIONS each interval
 * from the one gateway of the fleet holding its probe lease (from every gateway while Redis is unreachable), and
 * the {@link HealthBook} takes in the fleet's states a few times a second. A carrier named by a host name gets
 * one at each address its name resolves to; a host name that does not resolve is looked up again as the resolver's
 * cache allows. Carriers added or changed by a reload are picked up at the next tick.
 */
public final class HealthMonitor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(HealthMonitor.class);
    private static final long TICK_MS = 50;
    private static final long REFRESH_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    /** Missed renewals after which another gateway takes over a carrier's probing. */
    private static final int LEASE_INTERVALS = 3;

    private final HealthBook book;
    private final RedisHealthStore store;
    private final ProbeSender sender;
    private final Supplier<Map<String, CarrierConfig>> carriers;
    private final CarrierResolver resolver;
    private final String instanceId;
    private final Map<String, Long> nextProbeNanos = new ConcurrentHashMap<>();
    private final Set<String> probing = ConcurrentHashMap.newKeySet();
    private final ScheduledFuture<?> ticks;
    private long nextRefreshNanos = System.nanoTime();

    public HealthMonitor(HealthBook book, RedisHealthStore store, ProbeSender sender,
                         Supplier<Map<String, CarrierConfig>> carriers, CarrierResolver resolver, String instanceId,
                         ScheduledExecutorService timers) {
        this.book = book;
        this.store = store;
        this.sender = sender;
        this.carriers = carriers;
        this.resolver = resolver;
        this.instanceId = instanceId;
        this.ticks = timers.scheduleWithFixedDelay(this::tick, 0, TICK_MS, TimeUnit.MILLISECONDS);
    }

    /** Never throws: an exception would end the fixed-delay schedule, and with it every check. */
    private void tick() {
        try {
            long now = System.nanoTime();
            if (now - nextRefreshNanos >= 0) {
                nextRefreshNanos = now + REFRESH_NANOS;
                book.refresh();
            }
            for (CarrierConfig carrier : carriers.get().values()) {
                carrier.probe().ifPresent(probe -> maybeProbe(carrier, probe, now));
                if (resolver.unresolvedSince(carrier.uri()).isPresent()) {
                    // routing passes it over while down, so no call asks again; the cache looks it up again
                    // once its failure's retry time is over, and answers from the cache until then
                    resolver.resolve(carrier.uri());
                }
            }
        } catch (RuntimeException e) {
            log.warn("carrier health checks: {}", e.toString());
        }
    }

    private void maybeProbe(CarrierConfig carrier, ProbeSettings probe, long now) {
        Long next = nextProbeNanos.get(carrier.id());
        if (next != null && now - next < 0 || !probing.add(carrier.id())) {
            return;
        }
        nextProbeNanos.put(carrier.id(), now + probe.interval().toNanos());
        Duration lease = probe.interval().multipliedBy(LEASE_INTERVALS);
        CompletableFuture.completedFuture(null)
                .thenCompose(start -> store.lease(carrier.id(), instanceId, lease))
                .handle((mine, error) -> error != null || mine) // Redis unreachable: every gateway probes for itself
                .thenCompose(mine -> mine ? probeEachAddress(carrier, probe) : CompletableFuture.completedFuture(null))
                .whenComplete((done, error) -> probing.remove(carrier.id()));
    }

    /** Probes every address of the carrier at once; a name that does not resolve has none to probe. */
    private CompletionStage<Void> probeEachAddress(CarrierConfig carrier, ProbeSettings probe) {
        return resolver.resolve(carrier.uri()).thenCompose(targets -> CompletableFuture.allOf(
                targets.addresses().stream().map(address -> sender.probe(carrier, address, probe.timeout())
                        .handle((status, error) -> {
                            book.probed(carrier, address, error != null ? 0 : status);
                            return null;
                        }).toCompletableFuture()).toArray(CompletableFuture[]::new)));
    }

    @Override
    public void close() {
        ticks.cancel(false);
    }
}
