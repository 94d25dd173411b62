package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.Limit;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.health.CarrierState;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.sip.address.SipURI;
import javax.sip.message.Request;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Carriers named by host names with two SRV targets each, served by a real DNS server on loopback
 * ({@link LoopbackDns}), the targets real SIP agents: calls are spread over both targets within the carrier's cps, fail over from a dead
 * target to the live one, and a target that stops answering probes is down on its own while the carrier stays up.
 * A carrier whose name does not resolve is down, reason "unresolved", everywhere, and its caller hears why.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarrierAddressesTest {

    private static final String GW = "127.0.0.1";
    private static final String D = LoopbackDns.DOMAIN;
    private static final long WAIT_MS = 15_000;
    private static final double CPS = 10;

    private final List<SipAgent> agents = new ArrayList<>();
    private SipAgent caller;
    private SipAgent evenOne;
    private SipAgent evenTwo;
    private SipAgent live;
    private SipAgent dead;
    private SipAgent probedLive;
    private SipAgent probedMuted;
    private LoopbackDns dns;
    private Gateway gateway;
    private TestConfigs config;

    private SipAgent agent(String host) throws Exception {
        SipAgent agent = SipAgent.start(host);
        agents.add(agent);
        return agent;
    }

    @BeforeAll
    void start() throws Exception {
        caller = agent("127.0.0.170");
        evenOne = agent("127.0.0.171");
        evenTwo = agent("127.0.0.172");
        live = agent("127.0.0.173");
        dead = agent("127.0.0.174");
        probedLive = agent("127.0.0.175");
        probedMuted = agent("127.0.0.176");
        dns = LoopbackDns.start(60,
                srv("even", "one", evenOne), srv("even", "two", evenTwo),
                srv("halves", "live", live), srv("halves", "dead", dead),
                srv("probed", "plive", probedLive), srv("probed", "pmuted", probedMuted),
                host("one", evenOne), host("two", evenTwo), host("live", live), host("dead", dead),
                host("plive", probedLive), host("pmuted", probedMuted));
        Duration wait = Duration.ofSeconds(10);
        config = TestConfigs.onSharedRedis("addresses", RedisServerProcess.freePort())
                .dns(new DnsSettings(Optional.of(dns.address()), Duration.ofSeconds(1), Duration.ofHours(1)))
                .peer("caller", "127.0.0.170", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("even", "sip:even." + D + ";transport=udp", CPS, wait, Duration.ofSeconds(3))
                .carrier("halves", "sip:halves." + D + ";transport=udp", 1000, wait, Duration.ofMillis(300))
                .carrier("probed", "sip:probed." + D + ";transport=udp", 1000, wait, Duration.ofSeconds(3))
                .probe("probed", new ProbeSettings(Duration.ofMillis(100), Duration.ofMillis(80), 2, 2, Set.of(503)))
                .carrier("nowhere", "sip:nowhere." + D + ";transport=udp", 1000, wait, Duration.ofSeconds(3))
                .route("+1", "even").route("+2", "halves").route("+3", "probed").route("+4", "nowhere");
        gateway = Gateway.start(config.build());
    }

    /** An SRV record of equal priority (10) and weight (50) for {@code carrier}'s name, pointing at the agent. */
    private static LoopbackDns.Entry srv(String carrier, String target, SipAgent agent) {
        return LoopbackDns.srv("_sip._udp." + carrier + "." + D, target + "." + D, agent.port(), 10, 50);
    }

    private static LoopbackDns.Entry host(String name, SipAgent agent) {
        return LoopbackDns.host(name + "." + D, agent.host());
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        agents.parallelStream().forEach(SipAgent::close);
        dns.close();
    }

    @Test
    void callsGoToBothSrvTargetsAndTogetherNeverFasterThanTheCarriersCps() throws Exception {
        List<SipAgent.Call> calls = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            calls.add(caller.invite(GW, config.sipPort(), "+1555" + i));
        }
        for (SipAgent.Call call : calls) {
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        }
        List<SipAgent.Received> arrivals = new ArrayList<>(evenOne.received(Request.INVITE));
        arrivals.addAll(evenTwo.received(Request.INVITE));
        assertEquals(30, arrivals.size());
        assertTrue(evenOne.received(Request.INVITE).size() > 0 && evenTwo.received(Request.INVITE).size() > 0,
                "both targets get calls: " + evenOne.received(Request.INVITE).size() + " and "
                        + evenTwo.received(Request.INVITE).size());
        assertEquals("even." + D, ((SipURI) arrivals.get(0).request().getRequestURI()).getHost(),
                "the Request-URI keeps the carrier's name (RFC 3263)");

        // 11 INVITEs at 10 cps take at least a second to leave; the agents stamp arrivals, a little late at times
        // on a busy machine, so 200 ms of that second may be lost to their stamps.
        arrivals.sort(Comparator.comparingLong(SipAgent.Received::atNanos));
        int window = (int) CPS + 1;
        for (int i = 0; i + window - 1 < arrivals.size(); i++) {
            long spanMs = (arrivals.get(i + window - 1).atNanos() - arrivals.get(i).atNanos()) / 1_000_000;
            assertTrue(spanMs >= 800, window + " INVITEs reached the two targets within " + spanMs
                    + " ms, faster than the carrier's " + CPS + " cps");
        }
    }

    @Test
    void whenOneTargetIsDeadEveryCallEndsAtTheOtherAfterFailover() throws Exception {
        dead.close();
        try (LogCapture callLog = LogCapture.of("trunkgate.calls")) {
            List<SipAgent.Call> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                calls.add(caller.invite(GW, config.sipPort(), "+2555" + i));
            }
            for (SipAgent.Call call : calls) {
                assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
                assertEquals(1, live.received(Request.INVITE, call.callId()), "answered by the live target");
            }
            long failedOver = callLog.events().stream()
                    .filter(e -> e.getFormattedMessage().contains("halves->halves:timeout")).count();
            assertTrue(failedOver > 0, "calls tried at the dead target first (about half) failed over within the"
                    + " carrier: " + callLog.events());
        }
    }

    @Test
    void aTargetThatStopsAnsweringProbesIsDownOnItsOwnAndCallsGoStraightToTheOther() throws Exception {
        CarrierConfig probed = gateway.activeConfig().config().carriers().get("probed");
        String mutedAddress = "127.0.0.176:" + probedMuted.port() + "/udp";
        String liveAddress = "127.0.0.175:" + probedLive.port() + "/udp";
        awaitTrue(() -> probedMuted.received("OPTIONS").size() >= 2 && probedLive.received("OPTIONS").size() >= 2,
                "both addresses are probed");

        probedMuted.mute(true);
        awaitTrue(() -> addressDown(probed, mutedAddress), "the muted address is found down");
        assertTrue(gateway.health().isUp("probed"), "the carrier stays up while one address answers");
        awaitTrue(() -> Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_address_up",
                Map.of("carrier", "probed", "address", mutedAddress)).orElse(-1) == 0.0, "the address metric says so");
        assertEquals(1.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_address_up",
                Map.of("carrier", "probed", "address", liveAddress)).orElseThrow());
        JsonNode view = carrier(new AdminClient(gateway.adminAddress()), "probed");
        assertTrue(view.get("health").get("up").asBoolean());
        for (JsonNode address : view.get("addresses")) {
            boolean muted = address.get("address").asText().equals(mutedAddress);
            assertEquals(!muted, address.get("up").asBoolean(), address.toString());
            if (muted) {
                assertEquals("probe unanswered", address.get("reason").asText());
            }
        }
        assertEquals(2, view.get("addresses").size());

        int mutedInvites = probedMuted.received(Request.INVITE).size();
        try (LogCapture callLog = LogCapture.of("trunkgate.calls")) {
            for (int i = 0; i < 6; i++) {
                SipAgent.Call call = caller.invite(GW, config.sipPort(), "+3555" + i);
                assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
                assertEquals(1, probedLive.received(Request.INVITE, call.callId()));
            }
            assertFalse(callLog.events().stream().anyMatch(e -> e.getFormattedMessage().contains("probed->")),
                    "no call tried the address that is down: " + callLog.events());
        }
        assertEquals(mutedInvites, probedMuted.received(Request.INVITE).size());

        probedLive.mute(true);
        awaitTrue(() -> !gateway.health().isUp("probed"), "with every address down the carrier is down");
        assertEquals(CarrierState.Origin.CHECKS, gateway.health().state("probed").origin());
        SipAgent.Call refused = caller.invite(GW, config.sipPort(), "+3666");
        assertEquals(503, refused.awaitFinal(WAIT_MS).getStatusCode(), "every carrier of the route is down");
        assertEquals(0, probedLive.received(Request.INVITE, refused.callId()));

        probedMuted.mute(false);
        probedLive.mute(false);
        awaitTrue(() -> !addressDown(probed, mutedAddress) && !addressDown(probed, liveAddress)
                && gateway.health().isUp("probed"), "addresses and carrier are up again once they answer probes");
    }

    @Test
    void aCarrierWhoseNameDoesNotResolveIsDownAsUnresolvedEverywhereAndTheCallerHearsWhy() throws Exception {
        awaitTrue(() -> !gateway.health().isUp("nowhere"), "the carrier is down once its name failed to resolve");
        assertEquals(CarrierState.UNRESOLVED, gateway.health().state("nowhere").reason());
        JsonNode view = carrier(new AdminClient(gateway.adminAddress()), "nowhere");
        assertFalse(view.get("health").get("up").asBoolean(), view.toString());
        assertEquals("unresolved", view.get("health").get("reason").asText());
        assertEquals(0.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_up",
                Map.of("carrier", "nowhere")).orElseThrow());
        assertEquals(1.0, Metrics.value(gateway.metrics().scrape(), "trunkgate_carrier_up",
                Map.of("carrier", "even")).orElseThrow());

        try (LogCapture callLog = LogCapture.of("trunkgate.calls")) {
            SipAgent.Call call = caller.invite(GW, config.sipPort(), "+4555");
            javax.sip.message.Response answer = call.awaitFinal(WAIT_MS);
            assertEquals(503, answer.getStatusCode());
            String reason = String.valueOf(answer.getHeader("Reason"));
            assertTrue(reason.contains("unresolved: nowhere"), reason);
            awaitTrue(() -> callLog.events().stream().anyMatch(e -> e.getFormattedMessage()
                    .contains("nowhere->none:unresolved")), "the call log names the reason in the metrics' spelling");
        }
    }

    private boolean addressDown(CarrierConfig carrier, String label) {
        return gateway.health().addresses(carrier).entrySet().stream()
                .anyMatch(e -> e.getKey().label().equals(label) && !e.getValue().up());
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
        Await.atMost(Duration.ofMillis(WAIT_MS)).alias(what).until(condition::getAsBoolean);
    }
}
