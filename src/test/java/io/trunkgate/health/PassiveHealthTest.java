package io.trunkgate.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.CallFailures;
import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two gateways sharing one Redis, real SIP carriers, no probes: a carrier that stops answering goes down for both
 * after {@code down-after} calls timed out at one of them, the next calls go straight to its alternate, and once
 * {@code down-for} is over one call tries it again.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PassiveHealthTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 20_000;
    /** Long enough for the calls that must find it down on a busy machine; the test waits it out once. */
    private static final Duration DOWN_FOR = Duration.ofSeconds(10);

    private final SipAgents agents = new SipAgents();
    private Gateway first;
    private Gateway second;
    private TestConfigs firstConfig;
    private TestConfigs secondConfig;
    private SipAgent caller;
    private SipAgent dead;
    private SipAgent backup;

    @BeforeAll
    void start() throws Exception {
        caller = agents.start("127.0.0.181");
        dead = agents.start("127.0.0.182");
        dead.behave(Behaviour.SILENT);
        backup = agents.start("127.0.0.183");
        RedisSettings shared = TestConfigs.sharedRedis("passive");
        firstConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-1"));
        secondConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-2"));
        first = Gateway.start(firstConfig.build());
        second = Gateway.start(secondConfig.build());
    }

    private TestConfigs fleetConfig(TestConfigs config) {
        Duration wait = Duration.ofSeconds(5);
        return config.adminToken("passive-token")
                .peer("caller", "127.0.0.181", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("dead", dead, 1000, wait, Duration.ofMillis(300), "backup")
                .carrier("backup", backup, 1000, wait, wait)
                .callFailures("dead", new CallFailures(3, Set.of(), DOWN_FOR))
                .route("+1", "dead");
    }

    @AfterAll
    void stop() {
        second.close();
        first.close();
        agents.close();
    }

    @Test
    void aCarrierThatStopsAnsweringGoesDownAfterThreeCallsForTheFleetThenOneCallTriesItAgain() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertTrue(first.health().isUp("dead"), "up before its third timeout");
            SipAgent.Call call = caller.invite(GW, firstConfig.sipPort(), "+1555000" + i);
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "answered by the alternate");
            assertEquals(1, dead.received("INVITE", call.callId()), "it waited for the silent carrier first");
        }
        assertFalse(first.health().isUp("dead"), "three calls in a row timed out");
        awaitTrue(() -> !second.health().isUp("dead"), "the other gateway takes in the down");

        for (Gateway gateway : List.of(first, second)) {
            JsonNode health = carrier(new AdminClient(gateway.adminAddress()), "dead").get("health");
            assertFalse(health.get("up").asBoolean());
            assertEquals("checks", health.get("origin").asText());
            assertEquals("3 calls in a row timed out", health.get("reason").asText());
            assertTrue(health.hasNonNull("until"), "down for down-for: " + health);
            assertEquals(0.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_up",
                    Map.of("carrier", "dead")).orElseThrow());
        }
        assertEquals(1.0, Metrics.value(first.metrics().scrape(), "trunkgate_carrier_downs_total",
                Map.of("carrier", "dead", "by", "calls")).orElseThrow(), "counted where it was decided");
        assertEquals(0.0, Metrics.value(second.metrics().scrape(), "trunkgate_carrier_downs_total",
                Map.of("carrier", "dead", "by", "calls")).orElseThrow(), "once for the fleet");
        for (TestConfigs via : List.of(firstConfig, secondConfig)) {
            SipAgent.Call call = caller.invite(GW, via.sipPort(), "+1555100");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(0, dead.received("INVITE", call.callId()), "straight to the alternate: no wait for the dead");
            assertEquals(1, backup.received("INVITE", call.callId()));
        }

        awaitTrue(() -> first.health().isUp("dead") && second.health().isUp("dead"),
                "down-for over: both gateways try it again");
        int invitesBefore = dead.received("INVITE").size();
        SipAgent.Call retried = caller.invite(GW, secondConfig.sipPort(), "+1555200");
        assertEquals(200, retried.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, dead.received("INVITE", retried.callId()), "one call tries it again");
        // the caller's 200 from the alternate can overtake the down's write to Redis on a busy box
        awaitTrue(() -> !second.health().isUp("dead"), "and its timeout sets it down again at once");
        assertTrue(second.health().state("dead").reason().startsWith("tried again after 10s"),
                second.health().state("dead").reason());
        awaitTrue(() -> !first.health().isUp("dead"), "the first gateway takes in the new down");
        SipAgent.Call next = caller.invite(GW, firstConfig.sipPort(), "+1555201");
        assertEquals(200, next.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(invitesBefore + 1, dead.received("INVITE").size(), "no call but the one tried it");
    }

    private static JsonNode carrier(AdminClient admin, String id) throws Exception {
        for (JsonNode carrier : admin.get("/api/carriers").json().get("carriers")) {
            if (carrier.get("id").asText().equals(id)) {
                return carrier;
            }
        }
        throw new AssertionError("no carrier " + id + " in /api/carriers");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        if (!Await.until(Duration.ofMillis(WAIT_MS), condition::getAsBoolean, holds -> holds)) {
            throw new AssertionError("not within " + WAIT_MS + " ms: " + what);
        }
    }
}
