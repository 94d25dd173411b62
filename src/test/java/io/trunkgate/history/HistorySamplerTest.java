package io.trunkgate.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.history.TrafficHistory.PeerSecond;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class HistorySamplerTest {

    private static final RedisSettings UNUSED_REDIS = new RedisSettings(RedisMode.EMBEDDED, List.of(),
            Optional.empty(), Optional.empty(), Duration.ofSeconds(1), "tg", 0);

    @Test
    void eachTickHoldsTheCallsCountedSinceThePreviousOneAndThePeersShortestWindowLimit() {
        GatewayConfig config = new TestConfigs(UNUSED_REDIS, 5060)
                .peer("acme", "127.0.0.1", Limit.exact(Duration.ofSeconds(1), 10), Limit.exact(Duration.ofMinutes(1), 300))
                .peer("quiet", "127.0.0.2")
                .build();
        GatewayMetrics metrics = new GatewayMetrics("test");
        TrafficHistory history = new TrafficHistory(60);
        AtomicLong clock = new AtomicLong(1_000);
        HistorySampler sampler = new HistorySampler(history, () -> config, metrics, carrier -> 0,
                carrier -> CompletableFuture.completedFuture(Duration.ZERO), clock::get);

        for (int i = 0; i < 3; i++) {
            metrics.callAdmitted("acme");
        }
        metrics.callRejected("acme", "limited");
        sampler.run();
        metrics.callAdmitted("acme");
        clock.set(2_000);
        sampler.run();
        clock.set(3_000);
        sampler.run();

        List<TrafficHistory.Tick> ticks = history.ticks();
        assertEquals(List.of(1_000L, 2_000L, 3_000L), ticks.stream().map(TrafficHistory.Tick::epochMillis).toList());
        assertEquals(new PeerSecond(3, 1, 10.0), ticks.get(0).peers().get("acme"), "10 per second, not 300 per minute");
        assertEquals(new PeerSecond(1, 0, 10.0), ticks.get(1).peers().get("acme"));
        assertEquals(new PeerSecond(0, 0, 10.0), ticks.get(2).peers().get("acme"));
        assertEquals(new PeerSecond(0, 0, null), ticks.get(2).peers().get("quiet"));
    }
}
