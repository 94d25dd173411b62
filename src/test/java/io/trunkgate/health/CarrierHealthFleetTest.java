package io.trunkgate.health;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.sip.header.ReasonHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two gateways sharing one Redis, real SIP carriers: a carrier found down by either is routed around by both,
 * and comes back once its probes are answered again; a 503 with Retry-After to calls of several peers for several
 * numbers keeps both away for that long, one peer's refused number keeps nobody away.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarrierHealthFleetTest {

    private static final String GW = "127.0.0.1";
    private static final String TOKEN = "health-token";
    private static final long WAIT_MS = 15_000;
    private static final ProbeSettings PROBE = new ProbeSettings(Duration.ofMillis(100), Duration.ofMillis(80), 2, 2,
            Set.of(503));

    private final SipAgents agents = new SipAgents();
    private Gateway first;
    private Gateway second;
    private TestConfigs firstConfig;
    private TestConfigs secondConfig;
    private SipAgent caller;
    private SipAgent silent;
    private SipAgent alternate;
    private SipAgent pushy;
    private SipAgent lonely;
    private SipAgent unanswering;
    private SipAgent mallory;
    private SipAgent acme;
    private SipAgent globex;

    @BeforeAll
    void start() throws Exception {
        caller = agents.start("127.0.0.161");
        silent = agents.start("127.0.0.162");
        alternate = agents.start("127.0.0.163");
        pushy = agents.start("127.0.0.164");
        lonely = agents.start("127.0.0.165");
        unanswering = agents.start("127.0.0.166");
        unanswering.behave(Behaviour.SILENT);
        mallory = agents.start("127.0.0.167");
        acme = agents.start("127.0.0.168");
        globex = agents.start("127.0.0.169");
        RedisSettings shared = TestConfigs.sharedRedis("health");
        firstConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-1"));
        secondConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-2"));
        first = Gateway.start(firstConfig.build());
        second = Gateway.start(secondConfig.build());
    }

    private TestConfigs fleetConfig(TestConfigs config) {
        Duration wait = Duration.ofSeconds(5);
        return config.adminToken(TOKEN).peer("caller", "127.0.0.161", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("mallory", "127.0.0.167").peer("acme", "127.0.0.168").peer("globex", "127.0.0.169")
                .carrier("silent", silent, 1000, wait, Duration.ofSeconds(3), "alternate")
                .carrier("alternate", alternate, 1000, wait, wait)
                .carrier("pushy", pushy, 1000, wait, wait, "alternate")
                .carrier("lonely", lonely, 1000, wait, wait)
                .carrier("unanswering", unanswering, 1000, wait, Duration.ofMillis(300), "alternate")
                .probe("silent", PROBE).probe("lonely", PROBE)
                .probe("unanswering", new ProbeSettings(Duration.ofMinutes(10), Duration.ofSeconds(1), 2, 1, Set.of(503)))
                .route("+1", "silent").route("+2", "pushy").route("+3", "lonely").route("+4", "unanswering");
    }

    @AfterAll
    void stop() {
        second.close();
        first.close();
        agents.close();
    }

    @Test
    void aCarrierThatStopsAnsweringIsDownAtBothGatewaysAndCallsGoStraightToTheAlternate() throws Exception {
        awaitTrue(() -> silent.received("OPTIONS").size() >= 2, "the carrier is probed");
        assertTrue(first.health().isUp("silent") && second.health().isUp("silent"));

        silent.mute(true);
        awaitTrue(() -> !first.health().isUp("silent") && !second.health().isUp("silent"),
                "both gateways find the silent carrier down");
        JsonNode health = carrier(new AdminClient(second.adminAddress()), "silent").get("health");
        assertFalse(health.get("up").asBoolean());
        assertEquals("probe unanswered", health.get("reason").asText());
        assertEquals(1.0, Metrics.value(first.metrics().scrape(), "trunkgate_carrier_downs_total",
                Map.of("carrier", "silent", "by", "checks")).orElseThrow()
                + Metrics.value(second.metrics().scrape(), "trunkgate_carrier_downs_total",
                Map.of("carrier", "silent", "by", "checks")).orElseThrow(), "counted by the gateway that probes it");
        assertEquals("checks", health.get("origin").asText());
        for (Gateway gateway : List.of(first, second)) {
            assertEquals(0.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_up",
                    Map.of("carrier", "silent")).orElseThrow());
            assertEquals(1.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_up",
                    Map.of("carrier", "alternate")).orElseThrow());
        }

        for (TestConfigs via : List.of(firstConfig, secondConfig)) {
            SipAgent.Call call = caller.invite(GW, via.sipPort(), "+1555");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(0, silent.received("INVITE", call.callId()), "no INVITE goes to the carrier that is down");
            assertEquals(1, alternate.received("INVITE", call.callId()));
        }

        silent.mute(false);
        awaitTrue(() -> first.health().isUp("silent") && second.health().isUp("silent"),
                "both gateways find the carrier up again once it answers its probes");
        SipAgent.Call call = caller.invite(GW, secondConfig.sipPort(), "+1556");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, silent.received("INVITE", call.callId()));
    }

    @Test
    void onePeerDiallingARefusedNumberTakesNoCarrierAwayFromTheOthers() throws Exception {
        // Both carriers of the route refuse one number with Retry-After 60, as carriers refuse one destination.
        pushy.retryAfter(60);
        alternate.retryAfter(60);
        pushy.refuse("+2666");
        alternate.refuse("+2666");
        for (TestConfigs via : List.of(firstConfig, secondConfig, firstConfig, secondConfig, firstConfig)) {
            SipAgent.Call refused = mallory.invite(GW, via.sipPort(), "+2666");
            assertEquals(503, refused.awaitFinal(WAIT_MS).getStatusCode(), "both carriers refuse that number");
            assertEquals(1, pushy.received("INVITE", refused.callId()));
            assertEquals(1, alternate.received("INVITE", refused.callId()), "and the call failed over");
        }
        for (TestConfigs via : List.of(firstConfig, secondConfig)) {
            SipAgent.Call call = caller.invite(GW, via.sipPort(), "+2667");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(1, pushy.received("INVITE", call.callId()), "another peer's call still goes to the carrier");
        }
        // Each gateway weighs the answers it relayed before it relays the final one: its view is complete here.
        for (Gateway gateway : List.of(first, second)) {
            assertTrue(gateway.health().isUp("pushy") && gateway.health().isUp("alternate"),
                    "one peer's refused number holds no carrier down: " + gateway.health().state("pushy"));
        }
    }

    @Test
    void a503WithRetryAfterToSeveralPeersForSeveralNumbersKeepsEveryGatewayAwayForThatLong() throws Exception {
        pushy.behave(Behaviour.REJECT_503);
        pushy.retryAfter(30);
        refusedToThreePeers(firstConfig, "+2555");
        awaitTrue(() -> !second.health().isUp("pushy"), "the other gateway learns of the Retry-After");

        CarrierState held = second.health().state("pushy");
        assertEquals(CarrierState.Origin.CARRIER, held.origin());
        Duration left = Duration.between(Instant.now(), held.until().orElseThrow());
        assertTrue(left.compareTo(Duration.ofSeconds(20)) > 0 && left.compareTo(Duration.ofSeconds(30)) <= 0,
                "held down for the Retry-After: " + left);
        int invitesBefore = pushy.received("INVITE").size();
        for (TestConfigs via : List.of(firstConfig, secondConfig, firstConfig, secondConfig)) {
            SipAgent.Call call = caller.invite(GW, via.sipPort(), "+2556");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(1, alternate.received("INVITE", call.callId()));
        }
        assertEquals(invitesBefore, pushy.received("INVITE").size(), "no call went to the carrier during its hold");

        // An operator ends the hold early; a Retry-After of 1 s then ends by itself.
        AdminClient admin = new AdminClient(first.adminAddress());
        assertEquals(401, admin.send("POST", "/api/carriers/pushy/up", null, "wrong").status());
        AdminClient.Answer up = admin.send("POST", "/api/carriers/pushy/up", null, TOKEN);
        assertEquals(200, up.status(), up.body());
        assertTrue(up.json().get("health").get("up").asBoolean());
        awaitTrue(() -> second.health().isUp("pushy"), "the other gateway sees the operator's up");

        pushy.retryAfter(1);
        refusedToThreePeers(secondConfig, "+2557");
        awaitTrue(() -> !first.health().isUp("pushy"), "held down again, for 1 s");
        pushy.behave(Behaviour.ANSWER);
        awaitTrue(() -> first.health().isUp("pushy") && second.health().isUp("pushy"), "the 1 s hold ends");
        SipAgent.Call back = caller.invite(GW, firstConfig.sipPort(), "+2558");
        assertEquals(200, back.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, pushy.received("INVITE", back.callId()));
    }

    @Test
    void whenEveryCarrierOfTheRouteIsDownTheCallGets503AtOnce() throws Exception {
        AdminClient admin = new AdminClient(second.adminAddress());
        AdminClient.Answer noDuration = admin.send("POST", "/api/carriers/lonely/down", null, TOKEN);
        assertEquals(400, noDuration.status(), noDuration.body());
        assertEquals(404, admin.send("POST", "/api/carriers/nobody/down?duration=1m", null, TOKEN).status());
        AdminClient.Answer down = admin.send("POST", "/api/carriers/lonely/down?duration=10m", null, TOKEN);
        assertEquals(200, down.status(), down.body());
        assertEquals("operator", down.json().get("health").get("origin").asText());
        awaitTrue(() -> !first.health().isUp("lonely"), "the first gateway sees the operator's down");

        SipAgent.Call call = caller.invite(GW, firstConfig.sipPort(), "+3555");
        Response answer = call.awaitFinal(WAIT_MS);
        assertEquals(503, answer.getStatusCode());
        assertEquals("every carrier of the route is down",
                ((ReasonHeader) answer.getHeader(ReasonHeader.NAME)).getText());
        assertEquals(0, lonely.received("INVITE", call.callId()));
        assertTrue(first.health().state("lonely").until().isPresent(), "probes do not lift an operator's hold");

        assertEquals(200, admin.send("POST", "/api/carriers/lonely/up", null, TOKEN).status());
        awaitTrue(() -> first.health().isUp("lonely"), "the first gateway sees the operator's up");
    }

    @Test
    void callsTheCarrierLeavesUnansweredSetItDownForTheFleet() throws Exception {
        for (String number : List.of("+4555", "+4556")) {
            SipAgent.Call call = caller.invite(GW, firstConfig.sipPort(), number);
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(1, unanswering.received("INVITE", call.callId()));
            assertEquals(1, alternate.received("INVITE", call.callId()), "after answer-timeout, the alternate");
        }
        awaitTrue(() -> !second.health().isUp("unanswering"), "two timeouts in a row at one gateway: down for both");
        assertEquals("timeout", second.health().state("unanswering").reason());

        SipAgent.Call call = caller.invite(GW, secondConfig.sipPort(), "+4557");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(0, unanswering.received("INVITE", call.callId()), "straight to the alternate");
        assertEquals(1, alternate.received("INVITE", call.callId()));
    }

    private static JsonNode carrier(AdminClient admin, String id) throws Exception {
        for (JsonNode carrier : admin.get("/api/carriers").json().get("carriers")) {
            if (carrier.get("id").asText().equals(id)) {
                return carrier;
            }
        }
        throw new AssertionError("no carrier " + id + " in /api/carriers");
    }

    /** Calls of three peers, each for a number of its own, through {@code via}: pushy answers each 503. */
    private void refusedToThreePeers(TestConfigs via, String prefix) throws Exception {
        List<SipAgent> peers = List.of(caller, acme, globex);
        for (int i = 0; i < peers.size(); i++) {
            SipAgent.Call refused = peers.get(i).invite(GW, via.sipPort(), prefix + i);
            assertEquals(200, refused.awaitFinal(WAIT_MS).getStatusCode(), "the 503 fails over to the alternate");
        }
        assertTrue(pushy.received("INVITE").size() >= 2, "pushy refused the calls until it was held down");
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        if (!Await.until(Duration.ofMillis(WAIT_MS), condition::getAsBoolean, holds -> holds)) {
            throw new AssertionError("not within " + WAIT_MS + " ms: " + what);
        }
    }
}
