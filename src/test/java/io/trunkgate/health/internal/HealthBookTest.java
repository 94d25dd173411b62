package io.trunkgate.health.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CallFailures;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.config.SipUri;
import io.trunkgate.health.Caller;
import io.trunkgate.health.CarrierState;
import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;

/** Two gateways' books on one real Redis, time driven by a clock the test moves. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HealthBookTest {

    private static final Caller CALLER = new Caller("acme", "+15550100");
    private static final ProbeSettings PROBE = new ProbeSettings(Duration.ofSeconds(1), Duration.ofMillis(500), 3, 2,
            Set.of(503));
    /** Carriers named by an IP address: the address calls went to does not matter. */
    private static final CarrierAddress AT = new CarrierAddress("127.0.0.1", 5070, Transport.UDP);
    private static final CarrierResolver RESOLVER = CarrierResolver.open(DnsSettings.SYSTEM, java.time.Clock.systemUTC());
    private static final CarrierConfig CARRIER = new CarrierConfig("c", SipUri.parse("sip:127.0.0.1:5070"), 10, 1,
            Duration.ofSeconds(1), Set.of(503), true, List.of(), 100, Duration.ofSeconds(8), Duration.ofMinutes(2),
            OptionalInt.empty(), Optional.of(PROBE));
    private static final CarrierConfig UNPROBED = new CarrierConfig("u", SipUri.parse("sip:127.0.0.1:5071"), 10, 1,
            Duration.ofSeconds(1), Set.of(503), true, List.of(), 100, Duration.ofSeconds(8), Duration.ofMinutes(2));

    private RedissonClient redis;
    private final ManualTime time = new ManualTime();
    private final Clock clock = time.clock();
    private String prefix;
    private RedisHealthStore store;
    private HealthBook first;
    private HealthBook second;

    @BeforeAll
    void connect() {
        redis = StandaloneRedis.shared().newClient();
    }

    @AfterAll
    void disconnect() {
        redis.shutdown();
    }

    @BeforeEach
    void books() {
        prefix = "tg-book-" + UUID.randomUUID();
        store = new RedisHealthStore(redis, prefix);
        first = new HealthBook(store, "gw-1", clock, () -> Map.of("c", CARRIER, "u", UNPROBED), RESOLVER);
        second = new HealthBook(store, "gw-2", clock, () -> Map.of("c", CARRIER, "u", UNPROBED), RESOLVER);
    }

    @Test
    void downAfterConsecutiveFailuresForTheFleetAndUpAfterAnsweredProbes() throws Exception {
        first.probed(CARRIER, AT, 0);
        first.timedOut(CARRIER, AT);
        first.probed(CARRIER, AT, 200);
        first.probed(CARRIER, AT, 0);
        first.answered(CARRIER, AT, 503, Optional.empty(), CALLER);
        assertTrue(first.isUp("c"), "an answered probe between failures starts the count again");
        await(first.probed(CARRIER, AT, 503));
        assertFalse(first.isUp("c"), "three failures in a row");
        assertEquals("probe answered 503", first.state("c").reason());

        await(second.refresh());
        assertFalse(second.isUp("c"), "the other gateway takes in the shared state");
        assertEquals("gw-1", second.state("c").by());

        second.probed(CARRIER, AT, 200);
        assertFalse(second.isUp("c"));
        second.probed(CARRIER, AT, 404);
        assertTrue(second.isUp("c"), "any answer but a fail code counts; up after two");
        awaitUp(first);
    }

    @Test
    void aCarrierNamedByAHostIsCheckedAddressByAddressAndDownOnlyWhenEveryAddressIs() throws Exception {
        String name = "pair." + LoopbackDns.DOMAIN;
        try (LoopbackDns dns = LoopbackDns.start(60, LoopbackDns.host(name, "127.0.0.91"),
                LoopbackDns.host(name, "127.0.0.92"))) {
            CarrierResolver resolver = CarrierResolver.open(new DnsSettings(Optional.of(dns.address()),
                    Duration.ofSeconds(1), Duration.ofHours(1)), clock);
            CarrierConfig named = new CarrierConfig("n", SipUri.parse("sip:" + name + ":5060"), 10, 1,
                    Duration.ofSeconds(1), Set.of(503), true, List.of(), 100, Duration.ofSeconds(8),
                    Duration.ofMinutes(2), OptionalInt.empty(), Optional.of(PROBE));
            CarrierAddress a = new CarrierAddress("127.0.0.91", 5060, Transport.UDP);
            CarrierAddress b = new CarrierAddress("127.0.0.92", 5060, Transport.UDP);
            assertEquals(Set.of(a, b), Set.copyOf(await(resolver.resolve(named.uri())).addresses()));
            HealthBook one = new HealthBook(store, "gw-1", clock, () -> Map.of("n", named), resolver);
            HealthBook two = new HealthBook(store, "gw-2", clock, () -> Map.of("n", named), resolver);

            one.timedOut(named, a);
            one.answered(named, a, 503, Optional.empty(), CALLER);
            await(one.probed(named, a, 0));
            assertFalse(one.isUp(named, a), "three failures at the address");
            assertTrue(one.isUp(named, b));
            assertTrue(one.isUp("n"), "the carrier is up while an address is");
            await(two.refresh());
            assertFalse(two.isUp(named, a), "the other gateway takes in the address's state");
            assertEquals("probe unanswered", two.addresses(named).get(a).reason(), "with the failure that set it");

            two.probed(named, b, 0);
            two.probed(named, b, 0);
            await(two.probed(named, b, 0));
            assertFalse(two.isUp("n"), "every address down: the carrier is down");
            assertTrue(two.state("n").reason().startsWith("every address down"), two.state("n").reason());
            await(one.refresh());
            assertFalse(one.isUp("n"), "at the other gateway too");

            one.probed(named, b, 200);
            one.probed(named, b, 200);
            assertTrue(one.isUp(named, b) && one.isUp("n"), "one address back: the carrier is back");
        }
    }

    @Test
    void aRetryAfterHoldsTheCarrierDownForItsTimeWhateverTheProbesSay() throws Exception {
        refusedByQuorum(first, UNPROBED, Duration.ofSeconds(30));
        assertFalse(first.isUp("u"), "a carrier without probes is held too");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (second.isUp("u") && System.nanoTime() < deadline) {
            await(second.refresh()); // until the publication, sent without waiting, has reached Redis
        }
        CarrierState held = second.state("u");
        assertFalse(held.up());
        assertEquals(CarrierState.Origin.CARRIER, held.origin());
        assertEquals(clock.instant().plusSeconds(30), held.until().orElseThrow());

        refusedByQuorum(first, CARRIER, Duration.ofSeconds(30));
        for (int i = 0; i < 5; i++) {
            first.probed(CARRIER, AT, 200);
        }
        assertFalse(first.isUp("c"), "probes do not lift the carrier's own hold");

        time.advance(Duration.ofSeconds(29));
        assertFalse(first.isUp("c"));
        assertFalse(second.isUp("u"));
        time.advance(Duration.ofSeconds(1));
        assertTrue(first.isUp("c"), "up when the Retry-After has passed");
        assertTrue(second.isUp("u"));
    }

    /** Calls of as many peers, for as many numbers, as a hold needs, each answered 503 with {@code retryAfter}. */
    private static void refusedByQuorum(HealthBook book, CarrierConfig carrier, Duration retryAfter) {
        for (int i = 0; i < HealthBook.RETRY_AFTER_QUORUM; i++) {
            book.answered(carrier, AT, 503, Optional.of(retryAfter), new Caller("peer-" + i, "+100" + i));
        }
    }

    @Test
    void aRetryAfterHoldsTheCarrierOnlyOnceCallsOfSeveralPeersForSeveralNumbersGotIt() {
        Optional<Duration> retryAfter = Optional.of(Duration.ofSeconds(60));
        for (int i = 0; i < 20; i++) {
            first.answered(UNPROBED, AT, 503, retryAfter, new Caller("mallory", "+4410" + i));
            first.answered(UNPROBED, AT, 503, retryAfter, new Caller("peer-" + i, "+44999"));
        }
        assertTrue(first.isUp("u"), "one peer's many numbers, and many peers' one number: no evidence");
        time.advance(HealthBook.RETRY_AFTER_WINDOW.plusMillis(1));

        first.answered(UNPROBED, AT, 503, retryAfter, new Caller("acme", "+4420"));
        first.answered(UNPROBED, AT, 503, retryAfter, new Caller("globex", "+4421"));
        time.advance(HealthBook.RETRY_AFTER_WINDOW.plusMillis(1));
        first.answered(UNPROBED, AT, 503, retryAfter, new Caller("initech", "+4422"));
        first.answered(UNPROBED, AT, 503, retryAfter, new Caller("umbrella", "+4423"));
        assertTrue(first.isUp("u"), "acme's and globex's refusals are out of the window: two peers within it");
        first.answered(UNPROBED, AT, 503, retryAfter, new Caller("hooli", "+4424"));
        assertFalse(first.isUp("u"), "three peers, each with a number of its own, within the window: "
                + first.state("u"));
        assertEquals(CarrierState.Origin.CARRIER, first.state("u").origin());
    }

    @Test
    void anOperatorsHoldOutranksTheCarrierAndTheChecks() throws Exception {
        await(first.set(CARRIER, true, Optional.of(Duration.ofMinutes(1))));
        refusedByQuorum(second, CARRIER, Duration.ofSeconds(30));
        for (int i = 0; i < 3; i++) {
            second.timedOut(CARRIER, AT);
        }
        awaitUp(second);
        assertEquals(CarrierState.Origin.OPERATOR, second.state("c").origin(),
                "the shared operator's hold refused the Retry-After");

        CarrierState down = await(second.set(CARRIER, false, Optional.of(Duration.ofMinutes(5))));
        assertFalse(down.up(), "an operator may replace an operator's hold");
        await(first.refresh());
        assertFalse(first.isUp("c"));
        await(first.set(CARRIER, true, Optional.empty()));
        await(second.refresh());
        assertTrue(second.isUp("c"), "up without a duration clears any down state");
    }

    @Test
    void failedCallsSetACarrierWithoutProbesDownForTheFleetForDownForThenOneFailedCallSetsItDownAgain()
            throws Exception {
        CarrierConfig passive = UNPROBED.withCallFailures(new CallFailures(3, Set.of(500), Duration.ofSeconds(30)));
        HealthBook one = new HealthBook(store, "gw-1", clock, () -> Map.of("u", passive), RESOLVER);
        HealthBook two = new HealthBook(store, "gw-2", clock, () -> Map.of("u", passive), RESOLVER);

        one.timedOut(passive, AT);
        one.timedOut(passive, AT);
        one.answered(passive, AT, 486, Optional.empty(), CALLER);
        one.timedOut(passive, AT);
        one.answered(passive, AT, 500, Optional.empty(), CALLER);
        CarrierConfig listing503 = passive.withCallFailures(new CallFailures(3, Set.of(500, 503),
                Duration.ofSeconds(30)));
        one.answered(listing503, AT, 503, Optional.of(Duration.ofSeconds(60)), CALLER);
        assertTrue(one.isUp("u"), "an answer that is not a listed code starts the count again; a 503 with"
                + " Retry-After is the evidence's, not a failed call");
        one.timedOut(passive, AT);
        assertFalse(one.isUp("u"), "three failed calls in a row: timeouts and a listed code");
        CarrierState down = one.state("u");
        assertEquals("3 calls in a row timed out", down.reason());
        assertEquals(Optional.of(time.clock().instant().plus(Duration.ofSeconds(30))), down.until());
        awaitState(two, "u", false);
        assertEquals("gw-1", two.state("u").by(), "the other gateway takes in the shared state");

        time.advance(Duration.ofSeconds(29));
        assertFalse(one.isUp("u") || two.isUp("u"), "down for down-for");
        time.advance(Duration.ofSeconds(1));
        assertTrue(one.isUp("u") && two.isUp("u"), "then calls try it again, at either gateway");
        assertEquals("down-for over: calls try it again", two.state("u").reason());

        two.timedOut(passive, AT);
        assertFalse(two.isUp("u"), "the first call tried that fails sets it down again at once");
        assertTrue(two.state("u").reason().startsWith("tried again after 30s"), two.state("u").reason());
        awaitState(one, "u", false);

        time.advance(Duration.ofSeconds(30));
        one.answered(passive, AT, 200, Optional.empty(), CALLER);
        one.timedOut(passive, AT);
        one.timedOut(passive, AT);
        assertTrue(one.isUp("u"), "an answered call ends the retry: down-after counts again");
    }

    @Test
    void failedCallsSetOneAddressOfACarrierNamedByAHostDownAndTheCarrierOnlyWithEveryAddress() throws Exception {
        String name = "passive." + LoopbackDns.DOMAIN;
        try (LoopbackDns dns = LoopbackDns.start(60, LoopbackDns.host(name, "127.0.0.93"),
                LoopbackDns.host(name, "127.0.0.94"))) {
            CarrierResolver resolver = CarrierResolver.open(new DnsSettings(Optional.of(dns.address()),
                    Duration.ofSeconds(1), Duration.ofHours(1)), clock);
            CarrierConfig named = new CarrierConfig("p", SipUri.parse("sip:" + name + ":5060"), 10, 1,
                    Duration.ofSeconds(1), Set.of(503), true, List.of(), 100, Duration.ofSeconds(8),
                    Duration.ofMinutes(2)).withCallFailures(new CallFailures(2, Set.of(), Duration.ofSeconds(30)));
            CarrierAddress a = new CarrierAddress("127.0.0.93", 5060, Transport.UDP);
            CarrierAddress b = new CarrierAddress("127.0.0.94", 5060, Transport.UDP);
            assertEquals(Set.of(a, b), Set.copyOf(await(resolver.resolve(named.uri())).addresses()));
            HealthBook one = new HealthBook(store, "gw-1", clock, () -> Map.of("p", named), resolver);
            HealthBook two = new HealthBook(store, "gw-2", clock, () -> Map.of("p", named), resolver);

            one.timedOut(named, a);
            one.answered(named, b, 200, Optional.empty(), CALLER);
            one.timedOut(named, a);
            assertFalse(one.isUp(named, a), "two calls in a row timed out at that address: an answer elsewhere"
                    + " does not count for it");
            assertTrue(one.isUp(named, b) && one.isUp("p"), "the other address, and so the carrier, stay up");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (two.isUp(named, a) && System.nanoTime() < deadline) {
                await(two.refresh());
            }
            assertFalse(two.isUp(named, a), "the other gateway skips the address too");

            two.timedOut(named, b);
            two.timedOut(named, b);
            assertFalse(two.isUp("p"), "every address down: the carrier is down");
            time.advance(Duration.ofSeconds(30));
            assertTrue(two.isUp(named, a) && two.isUp(named, b) && two.isUp("p"), "down-for over at both addresses");
        }
    }

    @Test
    void callsNeverSetACarrierDownWithDownAfterZeroNorThroughAnOperatorsHold() throws Exception {
        CarrierConfig off = UNPROBED.withCallFailures(new CallFailures(0, Set.of(), Duration.ofSeconds(30)));
        HealthBook book = new HealthBook(store, "gw-1", clock, () -> Map.of("u", off), RESOLVER);
        for (int i = 0; i < 10; i++) {
            book.timedOut(off, AT);
        }
        assertTrue(book.isUp("u"), "down-after = 0: calls never set it down");

        CarrierConfig on = UNPROBED.withCallFailures(CallFailures.DEFAULTS);
        HealthBook held = new HealthBook(store, "gw-1", clock, () -> Map.of("u", on), RESOLVER);
        await(held.set(on, true, Optional.of(Duration.ofMinutes(1))));
        for (int i = 0; i < 5; i++) {
            held.timedOut(on, AT);
        }
        assertTrue(held.isUp("u"), "held up by an operator, whatever its calls do");
        assertEquals(CarrierState.Origin.OPERATOR, held.state("u").origin());
    }

    @Test
    void aProbedCarrierSetDownByItsCallsComesBackOnItsProbesBeforeDownForEnds() throws Exception {
        CarrierConfig probed = CARRIER.withCallFailures(new CallFailures(2, Set.of(), Duration.ofMinutes(5)));
        HealthBook book = new HealthBook(store, "gw-1", clock, () -> Map.of("c", probed), RESOLVER);
        book.timedOut(probed, AT);
        book.timedOut(probed, AT);
        assertFalse(book.isUp("c"), "two timeouts: call-failures.down-after before the probe's three");
        assertTrue(book.state("c").until().isPresent());
        await(book.probed(probed, AT, 0));
        long ttlMs = redis.getBucket(Subject.carrier("c").redisKey(prefix)).remainTimeToLive();
        assertTrue(ttlMs > HealthBook.checksTtl(PROBE).toMillis(),
                "a failed probe renews the down in Redis to its end, not to the probes' TTL: " + ttlMs + " ms");
        book.probed(probed, AT, 200);
        await(book.probed(probed, AT, 200));
        assertTrue(book.isUp("c"), "up-after answered probes bring it back");
    }

    private static void awaitState(HealthBook book, String carrier, boolean up) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (book.isUp(carrier) != up && System.nanoTime() < deadline) {
            await(book.refresh());
        }
        assertEquals(up, book.isUp(carrier), book.state(carrier).toString());
    }

    @Test
    void oneGatewayHoldsAProbeLeaseAtATime() throws Exception {
        assertTrue(await(store.lease("c", "gw-1", Duration.ofMinutes(1))));
        assertFalse(await(store.lease("c", "gw-2", Duration.ofMinutes(1))));
        assertTrue(await(store.lease("c", "gw-1", Duration.ofMinutes(1))), "renewed by its holder");
        assertTrue(await(store.lease("u", "gw-2", Duration.ofMinutes(1))), "a lease per carrier");
    }

    @Test
    void withoutRedisEachGatewayKeepsItsOwnView() {
        StandaloneRedis lost = StandaloneRedis.startPrivate();
        RedissonClient client = lost.newClient();
        try {
            HealthBook alone = new HealthBook(new RedisHealthStore(client, "tg-alone"), "gw-3", clock,
                    () -> Map.of("c", CARRIER), RESOLVER);
            lost.server().kill();
            for (int i = 0; i < 3; i++) {
                alone.probed(CARRIER, AT, 0);
            }
            assertFalse(alone.isUp("c"), "found down while Redis is unreachable");
            alone.refresh();
            alone.probed(CARRIER, AT, 200);
            alone.probed(CARRIER, AT, 200);
            assertTrue(alone.isUp("c"), "and up again on its own probes");
        } finally {
            client.shutdown(0, 1, TimeUnit.SECONDS);
            lost.server().close();
        }
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.SECONDS);
    }

    private static void awaitUp(HealthBook book) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!book.isUp("c") && System.nanoTime() < deadline) {
            await(book.refresh());
        }
        assertTrue(book.isUp("c"));
    }
}
