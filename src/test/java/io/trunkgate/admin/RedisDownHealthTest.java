package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient.Answer;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With its redis-server killed, the gateway reports itself unready and counts the Redis errors; the API answers
 * 503 without telling where Redis is or what failed.
 */
class RedisDownHealthTest {

    private static final String TOKEN = "down-token";

    @Test
    void healthTurnsUnreadyMetricsCountRedisErrorsAndTheApiHidesDetailsWhenRedisDies() throws Exception {
        StandaloneRedis redis = StandaloneRedis.startPrivate();
        SipAgent caller = SipAgent.start("127.0.0.81");
        SipAgent carrier = SipAgent.start("127.0.0.82");
        int sipPort = RedisServerProcess.freePort();
        RedisSettings base = RedisBackend.settings(RedisMode.STANDALONE, List.of(redis.server().address()));
        RedisSettings settings = new RedisSettings(base.mode(), base.addresses(), base.sentinelMaster(),
                base.password(), Duration.ofMillis(200), "tg-down", 0);
        Duration wait = Duration.ofSeconds(5);
        try (Gateway gateway = Gateway.start(new TestConfigs(settings, sipPort).instance("down-test").adminToken(TOKEN)
                .peer("acme", "127.0.0.81", Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("a", carrier, 100, wait, wait)
                .route("", "a")
                .build())) {
            AdminClient admin = new AdminClient(gateway.adminAddress());
            assertEquals(200, admin.get("/health").status());

            redis.server().close();
            Answer health = admin.get("/health");
            assertEquals(503, health.status(), health.body());
            JsonNode json = health.json();
            assertEquals("unready", json.get("status").asText());
            assertTrue(json.get("live").asBoolean());
            assertFalse(json.get("ready").asBoolean());
            assertFalse(json.get("redis").get("reachable").asBoolean());
            assertFalse(json.get("redis").get("error").asText().isEmpty());

            assertEquals(503, caller.invite("127.0.0.1", sipPort, "+1").awaitFinal(5000).getStatusCode(),
                    "redis-down = reject");
            String metrics = admin.get("/metrics").body();
            assertEquals(1.0, Metrics.value(metrics, "trunkgate_calls_rejected_total",
                    Map.of("peer", "acme", "reason", "redis_unavailable")).orElse(-1), metrics);
            assertEquals(1.0, Metrics.value(metrics, "trunkgate_redis_errors_total", Map.of("op", "admit"))
                    .orElse(-1));
            assertEquals(503, admin.get("/api/peers").status(), "no usage without Redis");

            String redisPort = String.valueOf(redis.server().port());
            for (Answer failed : List.of(admin.get("/api/peers"), admin.get("/api/blocks/acme"),
                    admin.send("PUT", "/api/blocks/acme?duration=1m", null, TOKEN),
                    admin.send("DELETE", "/api/blocks/acme", null, TOKEN))) {
                assertEquals(503, failed.status(), failed.body());
                String error = failed.json().get("error").asText().toLowerCase(Locale.ROOT);
                for (String detail : List.of("redis", "exception", "127.0.0.1", redisPort, "tg-down")) {
                    assertFalse(error.contains(detail), "'" + detail + "' in " + failed.body());
                }
            }
        } finally {
            caller.close();
            carrier.close();
        }
    }
}
