package io.trunkgate.history;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.history.TrafficHistory.CarrierSecond;
import io.trunkgate.history.TrafficHistory.PeerSecond;
import io.trunkgate.metrics.GatewayMetrics;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adds one {@link TrafficHistory.Tick} per run, meant to run once a second: the calls counted by the gateway's
 * meters since the previous run, the held calls now, and the latest known wait to each carrier's next slot.
 */
public final class HistorySampler implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(HistorySampler.class);

    private final TrafficHistory history;
    private final Supplier<GatewayConfig> config;
    private final GatewayMetrics metrics;
    private final ToIntFunction<String> heldCount;
    private final Function<CarrierConfig, CompletionStage<Duration>> nextSlotWait;
    private final LongSupplier clockMillis;
    private final Map<String, Map<String, Double>> previousCounts = new HashMap<>();
    private final Map<String, Double> latestWaitMs = new ConcurrentHashMap<>();
    private final Set<String> waitsInFlight = ConcurrentHashMap.newKeySet();

    public HistorySampler(TrafficHistory history, Supplier<GatewayConfig> config, GatewayMetrics metrics,
                          ToIntFunction<String> heldCount, Function<CarrierConfig, CompletionStage<Duration>> nextSlotWait,
                          LongSupplier clockMillis) {
        this.history = history;
        this.config = config;
        this.metrics = metrics;
        this.heldCount = heldCount;
        this.nextSlotWait = nextSlotWait;
        this.clockMillis = clockMillis;
    }

    /** Never throws: a scheduled task that throws is not run again. */
    @Override
    public void run() {
        try {
            sample();
        } catch (RuntimeException e) {
            log.warn("traffic history sample failed", e);
        }
    }

    private void sample() {
        GatewayConfig active = config.get();
        Map<String, Double> admitted = sinceLastRun("trunkgate.calls.admitted", "peer");
        Map<String, Double> refused = sinceLastRun("trunkgate.calls.rejected", "peer");
        Map<String, Double> sent = sinceLastRun("trunkgate.pacing.delay", "carrier");
        Map<String, Double> reroutes = sinceLastRun("trunkgate.reroutes", "carrier");
        Map<String, PeerSecond> peers = new HashMap<>();
        for (PeerConfig peer : active.peers().values()) {
            peers.put(peer.id(), new PeerSecond(count(admitted, peer.id()), count(refused, peer.id()),
                    shortestWindowCps(peer)));
        }
        Map<String, CarrierSecond> carriers = new HashMap<>();
        for (CarrierConfig carrier : active.carriers().values()) {
            refreshWait(carrier);
            carriers.put(carrier.id(), new CarrierSecond(count(sent, carrier.id()), carrier.cps(),
                    latestWaitMs.get(carrier.id()), heldCount.applyAsInt(carrier.id()), count(reroutes, carrier.id())));
        }
        history.add(new TrafficHistory.Tick(clockMillis.getAsLong(), peers, carriers));
    }

    /** How much each tag value's count grew since the previous run (the whole count at the first). */
    private Map<String, Double> sinceLastRun(String meter, String tag) {
        Map<String, Double> now = metrics.countsBy(meter, tag);
        Map<String, Double> before = previousCounts.getOrDefault(meter, Map.of());
        Map<String, Double> growth = new HashMap<>();
        now.forEach((id, count) -> growth.put(id, count - before.getOrDefault(id, 0.0)));
        previousCounts.put(meter, now);
        return growth;
    }

    private static int count(Map<String, Double> counts, String id) {
        return (int) Math.round(counts.getOrDefault(id, 0.0));
    }

    /**
     * The peer's own limit with the shortest window, in calls per second: the one a per-second chart can be held
     * against (a daily budget averaged over the day says little about any one second); null without limits.
     */
    private static Double shortestWindowCps(PeerConfig peer) {
        return peer.limits().stream().min(Comparator.comparing(Limit::window))
                .map(l -> l.max() / (l.window().toNanos() / 1e9)).orElse(null);
    }

    /**
     * Starts reading the carrier's wait from Redis, unless the previous read has not answered yet (a slow Redis
     * must not pile up reads); the tick takes the latest answer, a second old at most while Redis is healthy.
     */
    private void refreshWait(CarrierConfig carrier) {
        if (!waitsInFlight.add(carrier.id())) {
            return;
        }
        nextSlotWait.apply(carrier).whenComplete((wait, error) -> {
            if (error == null) {
                latestWaitMs.put(carrier.id(), wait.toNanos() / 1e6);
            } else {
                latestWaitMs.remove(carrier.id());
            }
            waitsInFlight.remove(carrier.id());
        });
    }
}
