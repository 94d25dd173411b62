package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.testing.SentinelRedis;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The sentinel mode of gateway.conf reaches the master its sentinel names and admits through it. */
class SentinelModeTest {

    @Test
    void admissionWorksThroughASentinel() {
        try (SentinelRedis redis = SentinelRedis.start()) {
            RedissonClient client = redis.newClient();
            try {
                AdmissionLimiter limiter = new RedisAdmissionLimiter(client, "tg-sentinel");
                Scope peer = Scope.peer("p-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(5), 1)));
                assertEquals(Outcome.ADMITTED,
                        limiter.admit(AdmissionRequest.of("a", peer)).toCompletableFuture().join().outcome());
                assertEquals(Outcome.LIMITED,
                        limiter.admit(AdmissionRequest.of("b", peer)).toCompletableFuture().join().outcome());
            } finally {
                client.shutdown();
            }
        }
    }
}
