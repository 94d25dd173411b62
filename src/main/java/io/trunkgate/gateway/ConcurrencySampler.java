package io.trunkgate.gateway;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.GroupConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.runtime.ActiveConfig;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/** Reads the fleet-wide calls in progress of every capped peer, group and carrier into the metrics. */
final class ConcurrencySampler implements Runnable {

    private final Supplier<ActiveConfig> config;
    private final CallLeases leases;
    private final GatewayMetrics metrics;

    ConcurrencySampler(Supplier<ActiveConfig> config, CallLeases leases, GatewayMetrics metrics) {
        this.config = config;
        this.leases = leases;
        this.metrics = metrics;
    }

    @Override
    public void run() {
        var active = config.get().config();
        Map<String, long[]> counts = new ConcurrentHashMap<>();
        CompletableFuture<?>[] reads = new CompletableFuture<?>[
                active.peers().size() + active.groups().size() + active.carriers().size()];
        int i = 0;
        for (PeerConfig peer : active.peers().values()) {
            reads[i++] = read(counts, "peer:" + peer.id(), peer.maxConcurrent(),
                    () -> leases.peerCalls(peer.id(), peer.group()));
        }
        for (GroupConfig group : active.groups().values()) {
            reads[i++] = read(counts, "group:" + group.id(), group.maxConcurrent(),
                    () -> leases.groupCalls(group.id()));
        }
        for (CarrierConfig carrier : active.carriers().values()) {
            reads[i++] = read(counts, "carrier:" + carrier.id(), carrier.maxConcurrent(),
                    () -> leases.carrierCalls(carrier.id()));
        }
        // A scope Redis did not answer for keeps no row this round rather than a stale one.
        CompletableFuture.allOf(reads).whenComplete((done, error) -> metrics.concurrentCalls(new TreeMap<>(counts)));
    }

    private static CompletableFuture<?> read(Map<String, long[]> counts, String scope, OptionalInt max,
                                             Supplier<CompletionStage<Long>> count) {
        if (max.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return count.get().thenAccept(calls -> counts.put(scope, new long[] {calls, max.getAsInt()}))
                .toCompletableFuture();
    }
}
