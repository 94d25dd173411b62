package io.trunkgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.RouteConfig;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.pace.internal.TimerCarrierPacer;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallRoutingTest {

    /** The carriers here are named by IP addresses: no DNS. */
    private static final CarrierResolver RESOLVER = CarrierResolver.open(DnsSettings.SYSTEM, Clock.systemUTC());

    private final GatewayThreads threads = new GatewayThreads();
    private RedissonClient redis;
    private CarrierPacer pacer;

    @BeforeAll
    void start() {
        redis = StandaloneRedis.shared().newClient();
        pacer = new TimerCarrierPacer(new RedisSlotReserver(redis, "tg-test"), threads.pacerTimer());
    }

    @AfterAll
    void stop() {
        pacer.close();
        redis.shutdown();
        threads.close();
    }

    private static String id(String name) {
        return name + "-" + UUID.randomUUID();
    }

    private static RouteTable routes(List<String> route, CarrierConfig... carriers) {
        Map<String, CarrierConfig> byId = new java.util.HashMap<>();
        for (CarrierConfig c : carriers) {
            byId.put(c.id(), c);
        }
        return new RouteTable(List.of(new RouteConfig("", route)), byId);
    }

    private static RoutingStep await(java.util.concurrent.CompletionStage<RoutingStep> step) throws Exception {
        return step.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    @Test
    void overflowGoesToTheAlternate() throws Exception {
        String b = id("b");
        CarrierConfig slow = Carriers.carrier(id("a"), 1, 1, Duration.ZERO, List.of(b), 100);
        CarrierConfig alternate = Carriers.carrier(b, 100, 1, Duration.ofSeconds(1), List.of(), 100);
        RouteTable table = routes(List.of(slow.id()), slow, alternate);

        RoutingStep first = await(new CallRouting("c1", "+1555", table, pacer, RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER).start());
        assertEquals(slow, assertInstanceOf(RoutingStep.Send.class, first).carrier());

        CallRouting second = new CallRouting("c2", "+1555", table, pacer, RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER);
        RoutingStep step = await(second.start());
        assertEquals(alternate, assertInstanceOf(RoutingStep.Send.class, step).carrier());
        assertEquals(List.of(slow.id() + "->" + b + ":over_max_wait"), second.reroutes());
    }

    @Test
    void aCallHeldWithItsAdmissionForItsFirstCarrierIsSentOnThatHold() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 1, 1, Duration.ofSeconds(5), List.of(), 100);
        RedisSlotReserver ledger = new RedisSlotReserver(redis, "tg-test");
        Reservation taken = ledger.reserve(a, a.maxWait()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        HeldCall held = pacer.hold(a, taken);
        CallRouting routing = new CallRouting("f1", "+1555", routes(List.of(a.id()), a), pacer,
                RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER);

        RoutingStep.Send send = assertInstanceOf(RoutingStep.Send.class,
                await(routing.start(new CallRouting.FirstHold(a, held))));
        assertEquals(a, send.carrier());
        Reservation next = ledger.reserve(a, a.maxWait()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(taken.slotMicros() + 1_000_000, next.slotMicros(), "routing reserved no second slot at a");
    }

    @Test
    void aCallHeldForACarrierThatIsNotTriedFirstIsLetGo() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        CarrierConfig b = Carriers.carrier(id("b"), 0.1, 1, Duration.ofSeconds(60), List.of(), 100);
        new RedisSlotReserver(redis, "tg-test").reserve(b, b.maxWait()).toCompletableFuture().get(5, TimeUnit.SECONDS);
        HeldCall heldAtB = pacer.hold(b); // its slot is 10 s away
        CallRouting routing = new CallRouting("f2", "+1555", routes(List.of(a.id(), b.id()), a, b), pacer,
                RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER);

        assertEquals(a, assertInstanceOf(RoutingStep.Send.class,
                await(routing.start(new CallRouting.FirstHold(b, heldAtB)))).carrier());
        PacingResult atB = heldAtB.result().toCompletableFuture().get(5, TimeUnit.SECONDS);
        assertEquals(PacingResult.Status.CANCELLED, atB.status(), "let go, its slot given back");
        assertEquals(List.of(a.id()), routing.tried());
    }

    @Test
    void exhaustionRejectsWithTheShortestRetryAfter() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 2, 1, Duration.ofMillis(100), List.of(), 100);
        CarrierConfig b = Carriers.carrier(id("b"), 4, 1, Duration.ofMillis(100), List.of(), 100);
        RouteTable table = routes(List.of(a.id(), b.id()), a, b);
        assertInstanceOf(RoutingStep.Send.class, await(new CallRouting("x1", "1", table, pacer,
                RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER).start()));
        // x1 took a's slot; x2 overflows a (next slot 500 ms away) and takes b's.
        assertInstanceOf(RoutingStep.Send.class, await(new CallRouting("x2", "1", table, pacer,
                RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER).start()));
        RoutingStep step = await(new CallRouting("x3", "1", table, pacer, RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER).start());
        RoutingStep.Exhausted exhausted = assertInstanceOf(RoutingStep.Exhausted.class, step);
        // a's slot is ~500 ms away, b's ~250 ms: b's wait beyond its 100 ms max-wait is the shortest.
        long retry = exhausted.retryAfter().orElseThrow().toMillis();
        assertTrue(retry > 100 && retry <= 150, "retry-after " + retry + " ms");
    }

    @Test
    void aTimeoutOr503TriesTheCarriersNextAddressOnAFreshSlotOfTheSameCarrierBeforeTheNextCarrier()
            throws Exception {
        String name = "routed." + LoopbackDns.DOMAIN;
        try (LoopbackDns dns = LoopbackDns.start(60, LoopbackDns.srv("_sip._udp." + name, "first." + name, 5071, 10, 1),
                LoopbackDns.srv("_sip._udp." + name, "second." + name, 5072, 20, 1),
                LoopbackDns.host("first." + name, "127.0.0.41"), LoopbackDns.host("second." + name, "127.0.0.42"))) {
            CarrierResolver resolver = CarrierResolver.open(new DnsSettings(Optional.of(dns.address()),
                    Duration.ofSeconds(1), Duration.ofHours(1)), Clock.systemUTC());
            CarrierConfig named = new CarrierConfig(id("named"), SipUri.parse("sip:" + name + ";transport=udp"), 2, 1,
                    Duration.ofSeconds(2), Set.of(503), true, List.of(), 100, Duration.ofSeconds(8),
                    Duration.ofMinutes(2));
            CarrierConfig next = Carriers.carrier(id("next"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
            RouteTable table = routes(List.of(named.id(), next.id()), named, next);
            CarrierAddress first = new CarrierAddress("127.0.0.41", 5071, Transport.UDP);
            CarrierAddress second = new CarrierAddress("127.0.0.42", 5072, Transport.UDP);

            CallRouting routing = new CallRouting("n1", "1", table, pacer, RerouteHook.CONFIGURED_CHAIN,
                    CarrierHealth.ALWAYS_UP, resolver);
            RoutingStep.Send sent = (RoutingStep.Send) await(routing.start());
            assertEquals(named, sent.carrier());
            assertEquals(first, sent.address(), "priority 10 before 20");
            RoutingStep.Send again = (RoutingStep.Send) await(routing.failover(RerouteReason.TIMEOUT, 0));
            assertEquals(named, again.carrier());
            assertEquals(second, again.address());
            assertTrue(again.held().toMillis() >= 250, "the second address waited for the carrier's next slot"
                    + " (500 ms at 2 cps): " + again.held().toMillis() + " ms");
            assertEquals(next, ((RoutingStep.Send) await(routing.failover(RerouteReason.FAILURE_RESPONSE, 503)))
                    .carrier(), "no address left: the next carrier");
            assertEquals(List.of(named.id() + "->" + named.id() + ":timeout",
                    named.id() + "->" + next.id() + ":failure_response(503)"), routing.reroutes());

            CallRouting busy = new CallRouting("n2", "1", table, pacer, RerouteHook.CONFIGURED_CHAIN,
                    CarrierHealth.ALWAYS_UP, resolver);
            assertEquals(first, ((RoutingStep.Send) await(busy.start())).address());
            assertEquals(next, ((RoutingStep.Send) await(busy.failover(RerouteReason.FAILURE_RESPONSE, 486)))
                    .carrier(), "a failure other than 503 leaves the carrier at once");
        }
    }

    @Test
    void failureResponseMovesToTheNextCandidate() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        CarrierConfig b = Carriers.carrier(id("b"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        CallRouting routing = new CallRouting("f1", "1", routes(List.of(a.id(), b.id()), a, b), pacer,
                RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER);
        assertEquals(a, ((RoutingStep.Send) await(routing.start())).carrier());
        assertEquals(b, ((RoutingStep.Send) await(routing.failover(RerouteReason.FAILURE_RESPONSE, 503))).carrier());
        assertInstanceOf(RoutingStep.Exhausted.class, await(routing.failover(RerouteReason.TIMEOUT, 0)));
        assertEquals(List.of(a.id() + "->" + b.id() + ":failure_response(503)", b.id() + "->none:timeout"),
                routing.reroutes());
    }

    /** Reverses the remaining chain and records what it saw; loaded by class name in a test below. */
    public static final class ReversingHook implements RerouteHook {
        static final List<RerouteContext> seen = new ArrayList<>();

        @Override
        public List<String> reroute(RerouteContext context) {
            seen.add(context);
            List<String> reversed = new ArrayList<>(context.remaining());
            java.util.Collections.reverse(reversed);
            return reversed;
        }
    }

    @Test
    void hookNamedInConfigReordersTheChainAndCannotRepeatACarrier() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        CarrierConfig b = Carriers.carrier(id("b"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        CarrierConfig c = Carriers.carrier(id("c"), 100, 1, Duration.ofSeconds(1), List.of(), 100);
        RerouteHook hook = RerouteHooks.load(Optional.of(ReversingHook.class.getName()));
        CallRouting routing = new CallRouting("h1", "+44", routes(List.of(a.id(), b.id(), c.id()), a, b, c), pacer, hook, CarrierHealth.ALWAYS_UP, RESOLVER);
        await(routing.start());
        assertEquals(c, ((RoutingStep.Send) await(routing.failover(RerouteReason.FAILURE_RESPONSE, 500))).carrier());
        RerouteContext context = ReversingHook.seen.get(ReversingHook.seen.size() - 1);
        assertEquals(a.id(), context.fromCarrier());
        assertEquals(500, context.responseCode());
        assertEquals(List.of(b.id(), c.id()), context.remaining());

        RerouteHook repeating = ctx -> List.of(a.id(), "no-such-carrier", b.id());
        CallRouting again = new CallRouting("h2", "+44", routes(List.of(a.id(), c.id()), a, b, c), pacer, repeating, CarrierHealth.ALWAYS_UP, RESOLVER);
        await(again.start());
        assertEquals(b, ((RoutingStep.Send) await(again.failover(RerouteReason.TIMEOUT, 0))).carrier());
    }

    @Test
    void aBadHookClassIsAClearError() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RerouteHooks.load(Optional.of("com.example.Missing")));
        assertTrue(e.getMessage().contains("com.example.Missing"));
    }

    @Test
    void cancelWhileHeldNeverSends() throws Exception {
        CarrierConfig a = Carriers.carrier(id("a"), 2, 1, Duration.ofSeconds(2), List.of(), 100);
        RouteTable table = routes(List.of(a.id()), a);
        await(new CallRouting("k1", "1", table, pacer, RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER).start());
        CallRouting held = new CallRouting("k2", "1", table, pacer, RerouteHook.CONFIGURED_CHAIN, CarrierHealth.ALWAYS_UP, RESOLVER);
        java.util.concurrent.CompletionStage<RoutingStep> step = held.start();
        assertTrue(held.cancel(), "its slot is 500 ms away: the call is still held");
        assertInstanceOf(RoutingStep.Cancelled.class, await(step));
    }
}
