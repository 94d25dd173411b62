package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.RedisMode;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisCallLeases;
import io.trunkgate.redis.RedisClients;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.RedisBackend;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** A call that ends while Redis is out of reach still gives its lease back once Redis returns. */
class LeaseOutageTest {

    private static final Duration LEASE = Duration.ofSeconds(60);

    @Test
    void aReleaseThatFailedIsReplayedWhenRedisComesBack() throws Exception {
        // An append-only file written on every command: the killed server comes back with its leases.
        RedisServerProcess server = RedisServerProcess.start(0, List.of("--appendonly", "yes", "--appendfsync", "always"));
        ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
        var settings = RedisBackend.settings(RedisMode.STANDALONE, List.of(server.address()));
        RedissonClient client = RedisClients.connect(settings.connection(), server.address());
        GatewayThreads threads = new GatewayThreads();
        try {
            Set<String> live = ConcurrentHashMap.newKeySet(2);
            live.addAll(List.of("ends-during-outage", "stays-up"));
            RedisBreaker breaker = RedisBreaker.withTimeout(Duration.ofMillis(200), threads.redisTimeouts(),
                    threads.redisResults());
            RedisCallLeases here = new RedisCallLeases(client, "tg-outage", breaker, "gw-here", LEASE, () -> live);
            RedisCallLeases other = new RedisCallLeases(client, "tg-outage", breaker, "gw-other", LEASE, () -> live);
            here.start(timers, Duration.ofMillis(200));
            Scope peer = new Scope(Scope.Kind.PEER, "p", List.of(), OptionalInt.of(5));
            assertEquals(Outcome.ADMITTED, new RedisAdmissionLimiter(client, "tg-outage", Optional.of(here))
                    .admit(AdmissionRequest.of("ends-during-outage", peer)).toCompletableFuture().join().outcome());
            assertEquals(Outcome.ADMITTED, new RedisAdmissionLimiter(client, "tg-outage", Optional.of(other))
                    .admit(AdmissionRequest.of("stays-up", peer)).toCompletableFuture().join().outcome());

            server.kill();
            live.remove("ends-during-outage");
            here.release("ends-during-outage");
            assertEquals(1, await(here::pendingReleases, 1), "the release waits for Redis");

            server.restart();
            assertEquals(0, await(here::pendingReleases, 0), "replayed once Redis answered");
            // The other instance's lease came back with the data: the one gone was released, not lost.
            assertEquals(1L, await(() -> count(here, peer), 1));
        } finally {
            timers.shutdownNow();
            client.shutdown();
            threads.close();
            server.close();
        }
    }

    private static long count(RedisCallLeases leases, Scope peer) {
        try {
            return leases.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /** Polls {@code value} until it reads {@code expected} (at most 20 s); returns the last reading. */
    private static long await(LongSupplier value, long expected) {
        return Await.until(Duration.ofSeconds(20), value::getAsLong, last -> last == expected);
    }
}
