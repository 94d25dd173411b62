package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.Map;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * max-concurrent through two gateway instances sharing one redis-server, with real SIP agents. The lease time is
 * 10 minutes (maintenance every 200 s), so a count that drops within a test's few seconds was released by the call's
 * end, not left to lapse nor swept.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConcurrentCallsTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;
    private final SipAgents agents = new SipAgents();
    private Gateway first;
    private Gateway second;
    private TestConfigs firstConfig;
    private TestConfigs secondConfig;
    /** Peer acme (max-concurrent 2). */
    private SipAgent acme;
    /** Peer solo (max-concurrent 1). */
    private SipAgent solo;
    /** Peer wide (no cap), for the carrier cases. */
    private SipAgent wide;
    private SipAgent answering;
    private SipAgent ringing;
    private SipAgent busy;
    private SipAgent capped;
    /** A carrier capped at one call whose max-concurrent is in shadow. */
    private SipAgent shadowCapped;
    private SipAgent alternate;
    /** Answers with a session timer of 1 s (refresher uac) that nobody refreshes. */
    private SipAgent timed;

    @BeforeAll
    void start() throws Exception {
        acme = agents.start("127.0.0.61");
        solo = agents.start("127.0.0.62");
        wide = agents.start("127.0.0.63");
        answering = agents.start("127.0.0.64");
        ringing = agents.start("127.0.0.65");
        ringing.behave(SipAgent.Behaviour.RING);
        busy = agents.start("127.0.0.66");
        busy.behave(SipAgent.Behaviour.BUSY_486);
        capped = agents.start("127.0.0.67");
        shadowCapped = agents.start("127.0.0.70");
        alternate = agents.start("127.0.0.68");
        timed = agents.start("127.0.0.69");
        timed.sessionExpires(1);
        RedisSettings shared = TestConfigs.sharedRedis("concurrent");
        firstConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-1"));
        secondConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-2"));
        first = Gateway.start(firstConfig.build());
        second = Gateway.start(secondConfig.build());
    }

    private TestConfigs fleetConfig(TestConfigs config) {
        Duration wait = Duration.ofSeconds(5);
        config.leaseTime(Duration.ofMinutes(10));
        Limit plenty = Limit.exact(Duration.ofSeconds(1), 1000);
        return config.peer("acme", "127.0.0.61", plenty).maxConcurrent("acme", 2)
                .peer("solo", "127.0.0.62", plenty).maxConcurrent("solo", 1)
                .peer("wide", "127.0.0.63", plenty)
                .carrier("answering", answering, 1000, wait, wait)
                .carrier("ringing", ringing, 1000, wait, wait)
                .carrier("busy", busy, 1000, wait, wait)
                .carrier("capped", capped, 1000, wait, wait, "alternate").maxConcurrent("capped", 1)
                .carrier("alternate", alternate, 1000, wait, wait)
                .carrier("shadow-capped", shadowCapped, 1000, wait, wait, "alternate").maxConcurrent("shadow-capped", 1)
                .carrierModes("shadow-capped", LimitMode.ENFORCE, LimitMode.SHADOW)
                .carrier("timed", timed, 1000, wait, wait)
                .route("+5", "timed")
                .route("+7", "ringing")
                .route("+8", "busy")
                .route("+9", "capped")
                .route("+6", "shadow-capped")
                .route("", "answering");
    }

    @AfterAll
    void stop() {
        second.close();
        first.close();
        agents.close();
    }

    private SipAgent.Call answered(SipAgent caller, TestConfigs via, String number) throws Exception {
        SipAgent.Call call = caller.invite(GW, via.sipPort(), number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final response for " + number);
        assertEquals(200, answer.getStatusCode(), number);
        call.ack();
        return call;
    }

    /** Polls the first instance's admin API until {@code path}'s count reads {@code expected} (at most 10 s). */
    private long awaitCalls(String list, String id, long expected) {
        return awaitCalls(list, id, expected, Duration.ofSeconds(10));
    }

    private long awaitCalls(String list, String id, long expected, Duration patience) {
        AdminClient admin = new AdminClient(first.adminAddress());
        return Await.until(patience,
                () -> concurrent(admin.get("/api/" + list).json().get(list), id).get("calls").asLong(),
                calls -> calls == expected);
    }

    private static JsonNode concurrent(JsonNode items, String id) {
        for (JsonNode item : items) {
            if (item.get("id").asText().equals(id)) {
                JsonNode concurrent = item.get("concurrent");
                return concurrent.isArray() ? concurrent.get(0) : concurrent;
            }
        }
        throw new AssertionError("no " + id + " in " + items);
    }

    @Test
    void aPeerCappedAtTwoThroughTwoGatewaysGetsTwoCallsUntilTheCalleeHangsUp() throws Exception {
        SipAgent.Call one = answered(acme, firstConfig, "+100");
        answered(acme, secondConfig, "+101");

        Response third = acme.invite(GW, firstConfig.sipPort(), "+102").awaitFinal(WAIT_MS);
        assertEquals(503, third.getStatusCode());
        assertTrue(((ReasonHeader) third.getHeader(ReasonHeader.NAME)).getText().contains("max-concurrent of peer:acme"),
                third.toString());
        assertNull(third.getHeader(RetryAfterHeader.NAME), "no Retry-After: nobody knows when a call ends");
        assertEquals(2, answering.received("INVITE").stream()
                .filter(r -> r.request().getRequestURI().toString().contains("+10")).count());
        JsonNode peer = concurrent(new AdminClient(second.adminAddress()).get("/api/peers").json().get("peers"), "acme");
        assertEquals(2, peer.get("calls").asLong());
        assertEquals(2, peer.get("max").asInt());

        assertEquals(200, answering.byeFromCallee(one.callId(), WAIT_MS).getStatusCode());
        assertEquals(1, awaitCalls("peers", "acme", 1), "the callee's BYE released the lease");
        answered(acme, secondConfig, "+103");
    }

    @Test
    void aCancelWhileRingingAndA486FreeTheLeaseAtOnce() throws Exception {
        SipAgent.Call ring = solo.invite(GW, firstConfig.sipPort(), "+700");
        assertTrue(ringing.await("INVITE", ring.callId(), 1, WAIT_MS) == 1, "the call reached the carrier");
        assertEquals(1, awaitCalls("peers", "solo", 1));
        assertEquals(503, solo.invite(GW, secondConfig.sipPort(), "+701").awaitFinal(WAIT_MS).getStatusCode(),
                "the cap of 1 is taken by the ringing call");
        awaitProvisional(ring);
        ring.cancel();
        assertEquals(487, ring.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(0, awaitCalls("peers", "solo", 0), "the CANCEL released the lease");

        SipAgent.Call refused = solo.invite(GW, secondConfig.sipPort(), "+800");
        assertEquals(486, refused.awaitFinal(WAIT_MS).getStatusCode(), "admitted, and busy at the carrier");
        assertEquals(0, awaitCalls("peers", "solo", 0), "the 486 released the lease");
        SipAgent.Call again = solo.invite(GW, firstConfig.sipPort(), "+801");
        assertEquals(486, again.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, busy.received("INVITE", again.callId()), "admitted again: the carrier saw it");
    }

    @Test
    void aSessionTimerNobodyRefreshesReleasesTheLeaseWithoutABye() throws Exception {
        answered(solo, firstConfig, "+500");
        assertEquals(1, awaitCalls("peers", "solo", 1));
        // Session-Expires 1 s and a grace of a third of it; the dialogs are checked every 10 s. Without the timer
        // the dialog would last sip.dialog-timeout (12 h) and the lease with it.
        assertEquals(0, awaitCalls("peers", "solo", 0, Duration.ofSeconds(40)), "the unrefreshed session ended");
        SipAgent.Call next = answered(solo, secondConfig, "+501");
        assertEquals(200, next.bye(WAIT_MS).getStatusCode());
        assertEquals(0, awaitCalls("peers", "solo", 0), "solo's cap is free for the other tests");
    }

    private static void awaitProvisional(SipAgent.Call call) throws Exception {
        Response response = call.next(WAIT_MS);
        while (response != null && response.getStatusCode() < 180) {
            response = call.next(WAIT_MS);
        }
        assertNotNull(response, "no 180 from the ringing carrier");
    }

    @Test
    void aCarrierWithAShadowCapOfOneTakesTheSecondCallWithoutALeaseAndCountsIt() throws Exception {
        SipAgent.Call one = answered(wide, firstConfig, "+600");
        SipAgent.Call two = answered(wide, firstConfig, "+601");
        assertEquals(1, shadowCapped.received("INVITE", two.callId()), "sent to the full carrier all the same");
        assertEquals(0, alternate.received("INVITE", two.callId()));
        AdminClient admin = new AdminClient(first.adminAddress());
        assertEquals(1, concurrent(admin.get("/api/carriers").json().get("carriers"), "shadow-capped").get("calls")
                .asLong(), "the second call holds no lease, as enforced it would not");
        assertEquals(1.0, Await.until(Duration.ofSeconds(5), () -> Metrics.value(admin.get("/metrics").body(),
                "trunkgate_calls_would_refuse_total", Map.of("peer", "wide", "limit",
                        "carrier:shadow-capped max-concurrent")).orElse(-1), count -> count == 1.0));
        assertEquals(200, shadowCapped.byeFromCallee(one.callId(), WAIT_MS).getStatusCode());
        assertEquals(200, shadowCapped.byeFromCallee(two.callId(), WAIT_MS).getStatusCode());
    }

    @Test
    void aCarrierCappedAtOneSendsTheSecondConcurrentCallToItsAlternate() throws Exception {
        SipAgent.Call one = answered(wide, firstConfig, "+900");
        assertEquals(1, capped.received("INVITE", one.callId()));
        SipAgent.Call two = answered(wide, secondConfig, "+901");
        assertEquals(1, alternate.received("INVITE", two.callId()), "the capped carrier was full");
        assertEquals(0, capped.received("INVITE", two.callId()));
        assertEquals(1, concurrent(new AdminClient(first.adminAddress()).get("/api/carriers").json().get("carriers"),
                "capped").get("calls").asLong());

        assertEquals(200, capped.byeFromCallee(one.callId(), WAIT_MS).getStatusCode());
        assertEquals(0, awaitCalls("carriers", "capped", 0));
        SipAgent.Call three = answered(wide, firstConfig, "+902");
        assertEquals(1, capped.received("INVITE", three.callId()), "room at the capped carrier again");
    }
}
