package io.trunkgate.limit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The admission plan cache holds one plan per peer, however many reloads changed its limits. */
class AdmissionPlanCacheTest {

    @Test
    void reloadsThatChangeAPeersLimitsReplaceItsPlan() {
        RedissonClient client = StandaloneRedis.shared().newClient();
        try {
            RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, "tg-test");
            String peerId = "peer-" + UUID.randomUUID();
            Scope group = Scope.group("group-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(1), 1000)));
            for (int reload = 1; reload <= 50; reload++) {
                Scope peer = Scope.peer(peerId, List.of(Limit.exact(Duration.ofSeconds(1), 100 + reload)));
                Optional<Scope> grouped = reload % 2 == 0 ? Optional.of(group) : Optional.empty();
                AdmissionRequest request = new AdmissionRequest("call-" + reload, 1, peer, grouped);
                assertEquals(Outcome.ADMITTED, limiter.admit(request).toCompletableFuture().join().outcome());
            }
            assertEquals(1, limiter.cachedPlans());
        } finally {
            client.shutdown();
        }
    }
}
