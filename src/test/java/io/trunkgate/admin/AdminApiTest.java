package io.trunkgate.admin;

import static io.trunkgate.testing.History.total;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient.Answer;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every admin endpoint against a running gateway with real SIP agents and a real redis-server. The metrics
 * test runs first (it counts exactly the calls made at start) and the refused reload last (it leaves /health
 * degraded).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminApiTest {

    private static final String GW = "127.0.0.1";
    private static final String TOKEN = "s3cret-token";
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private AdminClient admin;
    private int sipPort;
    private SipAgent open;
    private SipAgent tight;
    private SipAgent blocked;
    /** Taken right after the set-up traffic, so what other tests do (blocks, a reload) does not change them. */
    private Answer metricsAfterTraffic;
    private Answer healthBeforeAnyReload;

    @BeforeAll
    void start() throws Exception {
        open = agents.start("127.0.0.41");
        tight = agents.start("127.0.0.42");
        SipAgent carrierA = agents.start("127.0.0.43");
        SipAgent carrierB = agents.start("127.0.0.44");
        SipAgent rejecting = agents.start("127.0.0.45");
        blocked = agents.start("127.0.0.46");
        SipAgent carrierC = agents.start("127.0.0.47");
        rejecting.behave(SipAgent.Behaviour.REJECT_503);
        sipPort = RedisServerProcess.freePort();
        RedisSettings redis = TestConfigs.sharedRedis("admin");
        Duration wait = Duration.ofSeconds(5);
        gateway = Gateway.start(new TestConfigs(redis, sipPort).instance("admin-test").adminToken(TOKEN)
                .peer("open", "127.0.0.41", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("tight", "127.0.0.42", Limit.exact(Duration.ofMinutes(1), 1),
                        Limit.bucketed(Duration.ofHours(1), 100, Duration.ofMinutes(1)))
                .carrier("a", carrierA, 1000, wait, wait)
                .carrier("b", carrierB, 1000, wait, wait)
                .peer("blocked", "127.0.0.46", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("rejecting", rejecting, 1000, wait, wait, "b")
                .carrier("c", carrierC, 1000, wait, wait)
                .route("+1", "a")
                .route("+6", "c")
                .route("+5", "rejecting")
                .build());
        admin = new AdminClient(gateway.adminAddress());
        // Traffic for the metrics and usage: admitted, rejected by a limit, rerouted after a 503.
        assertEquals(200, open.invite(GW, sipPort, "+15550001").awaitFinal(5000).getStatusCode());
        assertEquals(200, tight.invite(GW, sipPort, "+15550002").awaitFinal(5000).getStatusCode());
        assertEquals(503, tight.invite(GW, sipPort, "+15550003").awaitFinal(5000).getStatusCode());
        assertEquals(200, open.invite(GW, sipPort, "+55550004").awaitFinal(5000).getStatusCode());
        metricsAfterTraffic = admin.get("/metrics");
        healthBeforeAnyReload = admin.get("/health");
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    @Test
    void historyHoldsTheCallsOfEachSecond() throws Exception {
        JsonNode history = Await.until(Duration.ofSeconds(10), () -> admin.get("/api/history").json(),
                h -> total(h, "peers", "tight", "refused") >= 1 && total(h, "carriers", "b", "sent") >= 1);
        assertTrue(total(history, "peers", "tight", "refused") >= 1 && total(history, "carriers", "b", "sent") >= 1,
                "the sampler (once a second) did not record the calls: " + history);
        assertEquals(2, total(history, "peers", "open", "admitted"));
        assertEquals(1, total(history, "peers", "tight", "admitted"));
        assertEquals(1, total(history, "peers", "tight", "refused"));
        assertEquals(2, total(history, "carriers", "a", "sent"), "open's and tight's first");
        assertEquals(1, total(history, "carriers", "rejecting", "reroutes"), "its 503 moved the call to b");
        assertEquals(1000, history.get("resolutionMs").asInt());
        assertEquals(600, history.get("capacity").asInt());
        int samples = history.get("times").size();
        for (JsonNode peer : history.get("peers")) {
            assertEquals(samples, peer.get("admitted").size(), peer.toString());
        }
        assertEquals(List.of("a", "b", "c", "rejecting"), history.findValuesAsText("id").subList(3, 7));
    }

    @Test
    void adminServerBindsLoopbackByDefault() {
        assertEquals("127.0.0.1", gateway.adminAddress().getAddress().getHostAddress());
    }

    @Test
    void healthReportsRedisAndConfigGeneration() throws Exception {
        Answer health = healthBeforeAnyReload;
        assertEquals(200, health.status(), health.body());
        assertTrue(health.header("Content-Type").startsWith("application/json"));
        JsonNode json = health.json();
        assertEquals("ok", json.get("status").asText());
        assertTrue(json.get("live").asBoolean());
        assertTrue(json.get("ready").asBoolean());
        assertTrue(json.get("redis").get("reachable").asBoolean());
        assertTrue(json.get("redis").get("latencyMs").asDouble() >= 0);
        assertEquals(1, json.get("config").get("generation").asLong());
        assertEquals("admin-test", json.get("instance").asText());
        assertFalse(json.get("config").has("lastReload"), "no reload happened yet");
    }

    @Test
    void metricsCountCallsReroutesPacingRedisAndTransactions() throws Exception {
        Answer answer = metricsAfterTraffic;
        assertEquals(200, answer.status());
        assertTrue(answer.header("Content-Type").startsWith("text/plain"));
        String m = answer.body();
        assertEquals(2.0, Metrics.value(m, "trunkgate_calls_admitted_total",
                Map.of("peer", "open", "gateway", "admin-test")).orElse(-1), m);
        assertEquals(1.0, Metrics.value(m, "trunkgate_calls_admitted_total", Map.of("peer", "tight")).orElse(-1));
        assertEquals(1.0, Metrics.value(m, "trunkgate_calls_rejected_total",
                Map.of("peer", "tight", "reason", "limited")).orElse(-1));
        assertEquals(1.0, Metrics.value(m, "trunkgate_reroutes_total",
                Map.of("carrier", "rejecting", "reason", "failure_response")).orElse(-1));
        assertEquals(2.0, Metrics.value(m, "trunkgate_pacing_delay_seconds_count", Map.of("carrier", "a")).orElse(-1));
        assertEquals(1.0, Metrics.value(m, "trunkgate_pacing_delay_seconds_count", Map.of("carrier", "b")).orElse(-1));
        assertTrue(Metrics.value(m, "trunkgate_pacing_delay_seconds_bucket",
                Map.of("carrier", "a", "le", "+Inf")).isPresent(), "a histogram with buckets");
        assertEquals(2.0, Metrics.value(m, "trunkgate_admission_to_send_seconds_count", Map.of("carrier", "a"))
                .orElse(-1), "admission to send, once per call");
        assertEquals(1.0, Metrics.value(m, "trunkgate_admission_to_send_seconds_count", Map.of("carrier", "rejecting"))
                .orElse(-1), "measured to the first carrier");
        assertEquals(0.0, Metrics.value(m, "trunkgate_admission_to_send_seconds_count", Map.of("carrier", "b"))
                .orElse(-1), "not to the carrier a failover reached (its series there from the start)");
        assertEquals(0.0, Metrics.value(m, "trunkgate_pacing_held_calls", Map.of("carrier", "a")).orElse(-1));
        assertTrue(Metrics.value(m, "trunkgate_pacing_held_calls", Map.of("carrier", "rejecting")).isPresent());
        assertEquals(4.0, Metrics.value(m, "trunkgate_redis_latency_seconds_count", Map.of("op", "admit")).orElse(-1));
        assertEquals(1.0, Metrics.value(m, "trunkgate_redis_latency_seconds_count", Map.of("op", "pace")).orElse(-1),
                "a's and rejecting's slots came with their admissions (admit-pace.lua); only the failover to b paced"
                        + " on its own");
        assertEquals(0.0, Metrics.value(m, "trunkgate_redis_errors_total", Map.of("op", "admit")).orElse(-1),
                "no Redis errors yet, and the series is there from the start");
        assertEquals(0.0, Metrics.value(m, "trunkgate_redis_errors_total", Map.of("op", "pace")).orElse(-1));
        assertEquals(0.0, Metrics.value(m, "trunkgate_sip_transactions_in_flight", Map.of()).orElse(-1));
        assertEquals(0.0, Metrics.value(m, "trunkgate_sip_new_calls_limit", Map.of()).orElse(-1),
                "no overload: new calls not limited");
        assertEquals(1.0, Metrics.value(m, "trunkgate_config_generation", Map.of()).orElse(-1));
    }

    @Test
    void peersShowEachLimitsLiveUsage() throws Exception {
        Answer answer = admin.get("/api/peers");
        assertEquals(200, answer.status(), answer.body());
        JsonNode peers = answer.json().get("peers");
        assertEquals(3, peers.size());
        assertEquals("blocked", peers.get(0).get("id").asText());
        assertEquals("open", peers.get(1).get("id").asText());
        JsonNode tightPeer = peers.get(2);
        assertEquals("tight", tightPeer.get("id").asText());
        JsonNode exact = tightPeer.get("limits").get(0);
        assertEquals("peer:tight", exact.get("scope").asText());
        assertEquals(60_000, exact.get("windowMs").asLong());
        assertEquals(1, exact.get("max").asLong());
        assertEquals(1, exact.get("used").asLong(), "the refused call does not count");
        assertEquals(0, exact.get("remaining").asLong());
        assertEquals(1 / 60.0, exact.get("cps").asDouble(), 1e-9);
        assertFalse(exact.has("calls"), "the list view carries no calls");
        JsonNode bucketed = tightPeer.get("limits").get(1);
        assertEquals(60_000, bucketed.get("precisionMs").asLong());
        assertEquals(1, bucketed.get("used").asLong());
        assertEquals(99, bucketed.get("remaining").asLong());
    }

    @Test
    void onePeerListsTheCallsInItsExactWindows() throws Exception {
        Answer answer = admin.get("/api/peers/tight");
        assertEquals(200, answer.status(), answer.body());
        JsonNode limits = answer.json().get("limits");
        JsonNode calls = limits.get(0).get("calls");
        assertEquals(1, calls.size());
        assertEquals(16, calls.get(0).get("member").asText().length(), "the CallMember of the Call-ID");
        double age = calls.get(0).get("ageMs").asDouble();
        assertTrue(age >= 0 && age < 60_000, "admitted moments ago: " + age);
        assertNotNull(calls.get(0).get("admittedAt").asText());
        assertFalse(limits.get(1).has("calls"), "a precision window keeps counts, not calls");

        assertEquals(404, admin.get("/api/peers/nobody").status());
        assertTrue(admin.get("/api/peers/nobody").json().get("error").asText().contains("nobody"));
    }

    @Test
    void carriersShowWaitAndHeldCalls() throws Exception {
        Answer answer = admin.get("/api/carriers");
        assertEquals(200, answer.status(), answer.body());
        JsonNode carriers = answer.json().get("carriers");
        assertEquals(List.of("a", "b", "c", "rejecting"),
                List.of(carriers.get(0).get("id").asText(), carriers.get(1).get("id").asText(),
                        carriers.get(2).get("id").asText(), carriers.get(3).get("id").asText()));
        JsonNode a = carriers.get(0);
        assertEquals(1000.0, a.get("cps").asDouble());
        assertEquals(5000, a.get("maxWaitMs").asLong());
        assertEquals(0, a.get("held").asInt());
        double wait = a.get("waitMs").asDouble();
        assertTrue(wait >= 0 && wait <= 1.0, "1000 cps: at most one interval to wait: " + wait);
    }

    @Test
    void blocksNeedTheTokenAndAValidDuration() throws Exception {
        assertEquals(401, admin.send("PUT", "/api/blocks/blocked?duration=1m", null, null).status());
        Answer wrong = admin.send("PUT", "/api/blocks/blocked?duration=1m", null, "not-it");
        assertEquals(401, wrong.status());
        assertTrue(wrong.header("WWW-Authenticate").startsWith("Bearer"));
        assertEquals(401, admin.send("POST", "/api/reload", null, null).status());
        assertEquals(401, admin.send("DELETE", "/api/blocks/blocked", null, null).status());

        Answer missing = admin.send("PUT", "/api/blocks/blocked", null, TOKEN);
        assertEquals(400, missing.status());
        assertTrue(missing.json().get("error").asText().contains("duration"));
        Answer bad = admin.send("PUT", "/api/blocks/blocked?duration=soon", null, TOKEN);
        assertEquals(400, bad.status());
        assertTrue(bad.json().get("error").asText().contains("soon"));
        assertEquals(400, admin.send("PUT", "/api/blocks/blocked", "{not json", TOKEN).status());
        assertEquals(404, admin.send("PUT", "/api/blocks/nobody?duration=1m", null, TOKEN).status());
        assertFalse(admin.get("/api/blocks/blocked").json().get("blocked").asBoolean(), "bad requests blocked nothing");
    }

    @Test
    void blockDurationsAreBoundedByAYear() throws Exception {
        for (String tooLong : List.of("366d", "8761h", "2738936160000000d", "99999999999999999999999ms")) {
            Answer refused = admin.send("PUT", "/api/blocks/blocked?duration=" + tooLong, null, TOKEN);
            assertEquals(400, refused.status(), tooLong + ": " + refused.body());
            assertTrue(refused.json().get("error").asText().contains("at most 365d"), refused.body());
        }
        assertFalse(admin.get("/api/blocks/blocked").json().get("blocked").asBoolean(), "nothing was blocked");

        Answer year = admin.send("PUT", "/api/blocks/blocked", "{\"duration\": \"365d\"}", TOKEN);
        assertEquals(200, year.status(), year.body());
        assertTrue(year.json().get("remainingMs").asLong() > Duration.ofDays(364).toMillis());
        assertTrue(admin.send("DELETE", "/api/blocks/blocked", null, TOKEN).json().get("lifted").asBoolean());
    }

    @Test
    void blockRefusesCallsUntilLifted() throws Exception {
        Answer put = admin.send("PUT", "/api/blocks/blocked", "{\"duration\": \"2m\"}", TOKEN);
        assertEquals(200, put.status(), put.body());
        assertTrue(put.json().get("blocked").asBoolean());
        long remaining = put.json().get("remainingMs").asLong();
        assertTrue(remaining > 110_000 && remaining <= 120_000, "remaining " + remaining);
        JsonNode get = admin.get("/api/blocks/blocked").json();
        assertTrue(get.get("blocked").asBoolean());
        assertTrue(admin.get("/api/peers").json().get("peers").get(0).has("blockedForMs"));
        assertEquals(403, blocked.invite(GW, sipPort, "+65550010").awaitFinal(5000).getStatusCode());
        assertTrue(Metrics.value(admin.get("/metrics").body(), "trunkgate_calls_rejected_total",
                Map.of("peer", "blocked", "reason", "blocked")).orElse(0) >= 1);

        Answer delete = admin.send("DELETE", "/api/blocks/blocked", null, TOKEN);
        assertEquals(200, delete.status());
        assertTrue(delete.json().get("lifted").asBoolean());
        assertFalse(delete.json().get("blocked").asBoolean());
        assertFalse(admin.send("DELETE", "/api/blocks/blocked", null, TOKEN).json().get("lifted").asBoolean());
        assertEquals(200, blocked.invite(GW, sipPort, "+65550011").awaitFinal(5000).getStatusCode());
    }

    @Test
    void reloadOfAConfigBuiltInCodeIsRefusedWithTheReason() throws Exception {
        Answer reload = admin.send("POST", "/api/reload", null, TOKEN);
        assertEquals(422, reload.status(), reload.body());
        JsonNode json = reload.json();
        assertFalse(json.get("applied").asBoolean());
        assertEquals(1, json.get("generation").asLong());
        assertEquals("test.conf", json.get("errors").get(0).get("file").asText());
        assertEquals("file not found", json.get("errors").get(0).get("message").asText());
        assertEquals(1, gateway.activeConfig().generation());
    }

    @Test
    void unknownPathsAnd404AndWrongMethods405() throws Exception {
        Answer unknown = admin.get("/api/nothing");
        assertEquals(404, unknown.status());
        assertTrue(unknown.json().get("error").asText().contains("/api/nothing"));
        Answer wrongMethod = admin.send("POST", "/health", null, TOKEN);
        assertEquals(405, wrongMethod.status());
        assertEquals("GET", wrongMethod.header("Allow"));
    }

    @Test
    void statusPageIsServedAtTheRoot() throws Exception {
        Answer page = admin.get("/");
        assertEquals(200, page.status());
        assertTrue(page.header("Content-Type").startsWith("text/html"));
        assertTrue(page.body().contains("/api/peers") && page.body().contains("/api/carriers"));
    }
}
