package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisCallLeases;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.ScriptClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * max-concurrent caps (leases), specified once and run against every Redis topology. Two clients play two
 * gateway instances; each test uses fresh peer, group and carrier ids.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ConcurrentCallConformance {

    private static final String PREFIX = "tg-cc";
    private static final Duration LONG_LEASE = Duration.ofSeconds(60);
    private final List<RedissonClient> clients = new ArrayList<>();
    private final List<ScheduledExecutorService> timers = new ArrayList<>();
    private final List<RedisCallLeases> started = new ArrayList<>();
    /** The calls "in progress" at every instance of the test: a lease of any other call is swept. */
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final GatewayThreads threads = new GatewayThreads();
    private final RedisBreaker breaker = RedisBreaker.withTimeout(Duration.ofSeconds(2), threads.redisTimeouts(),
            threads.redisResults());

    protected abstract RedisBackend backend();

    @BeforeAll
    void connect() {
        RedisBackend backend = backend();
        clients.add(backend.newClient());
        clients.add(backend.newClient());
    }

    @AfterEach
    void stopInstances() {
        started.forEach(leases -> leases.close(Duration.ofSeconds(1)));
        started.clear();
        timers.forEach(ScheduledExecutorService::shutdownNow);
        timers.clear();
    }

    @AfterAll
    void disconnect() {
        clients.forEach(RedissonClient::shutdown);
        threads.close();
    }

    /** One instance's leases, renewed every third of {@code leaseTime} on a scheduler of its own. */
    private RedisCallLeases instance(int client, String owner, Duration leaseTime) {
        RedisCallLeases leases = new RedisCallLeases(clients.get(client), PREFIX, breaker, owner, leaseTime, () -> live);
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
        timers.add(scheduler);
        started.add(leases);
        leases.start(scheduler, leaseTime.dividedBy(3));
        return leases;
    }

    private AdmissionLimiter limiter(int client, RedisCallLeases leases) {
        return new RedisAdmissionLimiter(clients.get(client), PREFIX, Optional.of(leases));
    }

    private String call() {
        String id = UUID.randomUUID() + "@test";
        live.add(id);
        return id;
    }

    private static AdmissionDecision admit(AdmissionLimiter limiter, String callId, Scope peer, Optional<Scope> group) {
        return limiter.admit(new AdmissionRequest(callId, 1, peer, group)).toCompletableFuture().join();
    }

    private static AdmissionDecision admit(AdmissionLimiter limiter, String callId, Scope peer) {
        return admit(limiter, callId, peer, Optional.empty());
    }

    private static Scope cappedPeer(int max, Limit... limits) {
        return new Scope(Scope.Kind.PEER, "peer-" + UUID.randomUUID(), List.of(limits), OptionalInt.of(max));
    }

    /** Waits (polling Redis, at most 15 s) until {@code count} reads {@code expected}; returns the last read. */
    private static long awaitCount(Supplier<java.util.concurrent.CompletionStage<Long>> count, long expected) {
        return Await.until(Duration.ofSeconds(15), () -> count.get().toCompletableFuture().join(),
                last -> last == expected);
    }

    @Test
    void peerCapHoldsAcrossInstancesAndAReleaseLetsTheNextCallIn() throws Exception {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        RedisCallLeases b = instance(1, "gw-b", LONG_LEASE);
        Scope peer = cappedPeer(2);
        String first = call();
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), first, peer).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter(1, b), call(), peer).outcome());

        AdmissionDecision third = admit(limiter(0, a), call(), peer);
        assertEquals(Outcome.CONCURRENT, third.outcome());
        assertEquals(Optional.of(peer), third.refusedBy());
        assertEquals(Duration.ZERO, third.retryAfter(), "no Retry-After: nobody knows when a call ends");
        assertEquals(2L, a.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join());

        a.release(first);
        assertEquals(1L, awaitCount(() -> b.peerCalls(peer.id(), Optional.empty()), 1));
        assertEquals(Outcome.ADMITTED, admit(limiter(1, b), call(), peer).outcome());
    }

    @Test
    void aShadowCapAdmitsEveryCallReportsThoseOverItAndHoldsOnlyTheLeasesItWouldHaveGiven() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        Scope peer = cappedPeer(2).withMaxConcurrent(OptionalInt.of(2), LimitMode.SHADOW);
        AdmissionLimiter limiter = limiter(0, a);
        List<List<WouldRefuse>> over = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            AdmissionDecision d = admit(limiter, call(), peer);
            assertEquals(Outcome.ADMITTED, d.outcome(), "a shadow cap refuses nothing");
            over.add(d.wouldRefuse());
        }
        WouldRefuse cap = new WouldRefuse(peer, Optional.empty());
        assertEquals(List.of(List.of(), List.of(), List.of(cap), List.of(cap)), over);
        assertEquals("peer:" + peer.id() + " max-concurrent", cap.label());
        assertEquals(2L, a.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join(),
                "the calls over the cap took no lease, as they would not have if it were enforced");

        Scope enforced = peer.withMaxConcurrent(OptionalInt.of(2), LimitMode.ENFORCE);
        assertEquals(Outcome.CONCURRENT, admit(limiter, call(), enforced).outcome(), "switched to enforce: full");
    }

    @Test
    void groupCapCountsTheCallsOfEveryPeerOfTheGroup() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        String groupId = "group-" + UUID.randomUUID();
        Scope group = new Scope(Scope.Kind.GROUP, groupId, List.of(), OptionalInt.of(1));
        Scope one = Scope.peer("peer-" + UUID.randomUUID(), List.of());
        Scope two = Scope.peer("peer-" + UUID.randomUUID(), List.of());
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), call(), one, Optional.of(group)).outcome());
        AdmissionDecision refused = admit(limiter(0, a), call(), two, Optional.of(group));
        assertEquals(Outcome.CONCURRENT, refused.outcome());
        assertEquals(Optional.of(group), refused.refusedBy());
        assertEquals(1L, a.groupCalls(groupId).toCompletableFuture().join());
    }

    @Test
    void aCapRefusalRecordsNoRateAndARateRefusalTakesNoLease() throws Exception {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        Scope peer = cappedPeer(1, Limit.exact(Duration.ofSeconds(30), 3));
        AdmissionLimiter limiter = limiter(0, a);
        for (int i = 0; i < 3; i++) {
            String callId = call();
            assertEquals(Outcome.ADMITTED, admit(limiter, callId, peer).outcome(), "call " + i);
            if (i < 2) {
                // refused for the cap while callId is up: must not use any of the 3 per 30 s (the third would
                // then be refused); with the window full, the rate refusal is the one reported
                assertEquals(Outcome.CONCURRENT, admit(limiter, call(), peer).outcome());
            }
            a.release(callId);
            assertEquals(0L, awaitCount(() -> a.peerCalls(peer.id(), Optional.empty()), 0));
        }
        assertEquals(Outcome.LIMITED, admit(limiter, call(), peer).outcome(), "the 4th in 30 s");
        assertEquals(0L, a.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join());
    }

    @Test
    void aCallOfferedAgainHoldsOneLease() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        Scope peer = cappedPeer(1, Limit.exact(Duration.ofSeconds(10), 100));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), callId, peer).outcome());
        assertEquals(Outcome.DUPLICATE, admit(limiter(0, a), callId, peer).outcome());
        assertEquals(1L, a.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join());
    }

    @Test
    void aCopyOfACallThroughAnotherInstanceAtAFullCapIsADuplicateAndTakesNoLease() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        RedisCallLeases b = instance(1, "gw-b", LONG_LEASE);
        Scope peer = cappedPeer(1, Limit.exact(Duration.ofSeconds(10), 100));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), callId, peer).outcome());
        assertEquals(Outcome.DUPLICATE, admit(limiter(1, b), callId, peer).outcome(), "a merged request, not a cap");
        assertEquals(0, b.held(), "the copy holds no lease");
        assertEquals(1L, a.peerCalls(peer.id(), Optional.empty()).toCompletableFuture().join());
    }

    @Test
    void aFullCarrierRefusesAndFailoverMovesTheLease() throws Exception {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        RedisCallLeases b = instance(1, "gw-b", LONG_LEASE);
        String first = "carrier-" + UUID.randomUUID();
        String second = "carrier-" + UUID.randomUUID();
        String callA = call();
        String callB = call();
        assertTrue(a.takeCarrier(callA, first, 1).toCompletableFuture().join());
        assertFalse(b.takeCarrier(callB, first, 1).toCompletableFuture().join(), "the carrier is full");
        assertTrue(a.takeCarrier(callA, first, 1).toCompletableFuture().join(), "the call holding it keeps it");

        assertTrue(a.takeCarrier(callA, second, 1).toCompletableFuture().join(), "failover to the second");
        assertEquals(0L, awaitCount(() -> b.carrierCalls(first), 0), "the first carrier's lease went");
        assertTrue(b.takeCarrier(callB, first, 1).toCompletableFuture().join());
        assertEquals(1L, a.carrierCalls(second).toCompletableFuture().join());

        a.release(callA);
        assertEquals(0L, awaitCount(() -> b.carrierCalls(second), 0));
    }

    /**
     * An instance crashed with 20,000 calls up: their leases lapsed, beside the live one of another instance. The
     * next admission at the capped peer, and the next lease taken at a capped carrier, count only the live leases and
     * drop at most 32 of the lapsed ones each (later calls drop the rest), so they cost a bounded amount
     * (bench/redis-cost.sh gives the time). A set of lapsed leases only goes at once (UNLINK, freed off the main thread).
     */
    @Test
    void twentyThousandLapsedLeasesAreDroppedABoundedNumberPerCall() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        Scope peer = cappedPeer(2);
        String carrier = "carrier-" + UUID.randomUUID();
        new ScriptClock(clients.get(0), PREFIX, "p:" + peer.id());
        new ScriptClock(clients.get(0), PREFIX, "c:" + carrier);
        String peerLeases = PREFIX + ":{p:" + peer.id() + "}:leases:peer:" + peer.id();
        String carrierLeases = PREFIX + ":{c:" + carrier + "}:leases";
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), call(), peer).outcome());
        assertTrue(a.takeCarrier(call(), carrier, 2).toCompletableFuture().join());
        for (String key : List.of(peerLeases, carrierLeases)) {
            Map<Object, Double> lapsed = new HashMap<>();
            for (int i = 0; i < 20_000; i++) {
                lapsed.put("crashed-call-" + i + "@gw-x", (double) (ScriptClock.START_MICROS / 1000 - 1 - i % 5000));
            }
            clients.get(0).getScoredSortedSet(key, StringCodec.INSTANCE).addAll(lapsed);
        }

        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), call(), peer).outcome(), "none of the lapsed counts");
        assertEquals(20_001 - 32 + 1, clients.get(0).getScoredSortedSet(peerLeases).size());
        assertEquals(Outcome.CONCURRENT, admit(limiter(0, a), call(), peer).outcome(), "the two live leases do");
        assertEquals(20_002 - 2 * 32, clients.get(0).getScoredSortedSet(peerLeases).size());

        assertTrue(a.takeCarrier(call(), carrier, 2).toCompletableFuture().join());
        assertEquals(20_001 - 32 + 1, clients.get(0).getScoredSortedSet(carrierLeases).size());
        assertFalse(a.takeCarrier(call(), carrier, 2).toCompletableFuture().join(), "the two live leases count");
        assertEquals(20_002 - 2 * 32, clients.get(0).getScoredSortedSet(carrierLeases).size());
    }

    /**
     * A shadow cap reports a call over it exactly when the same cap enforced refuses it, call for call, over 6,000
     * offers with re-offers: each call holds its lease 2 s of the script clock (nothing renews it), then it lapses, as
     * the call's end.
     */
    @Test
    void aShadowCapReportsExactlyTheCallsItsEnforcedTwinRefuses() {
        Duration callLength = Duration.ofSeconds(2);
        RedisCallLeases leases = new RedisCallLeases(clients.get(0), PREFIX, breaker, "gw-a", callLength, () -> live);
        started.add(leases);
        AdmissionLimiter limiter = limiter(0, leases);
        Scope group = Scope.group("group-" + UUID.randomUUID(), List.of());
        Scope shadow = new Scope(Scope.Kind.PEER, "peer-" + UUID.randomUUID(), List.of(), OptionalInt.of(6),
                LimitMode.SHADOW);
        Scope twin = cappedPeer(6);
        ScriptClock clock = new ScriptClock(clients.get(0), PREFIX, "g:" + group.id());
        List<Offers.Offer> offers = Offers.of(470, 6_000);
        List<String> mismatches = new ArrayList<>();
        int refused = 0;
        for (int i = 0; i < offers.size(); i++) {
            Offers.Offer offer = offers.get(i);
            clock.set(offer.atMicros());
            var s = limiter.admit(new AdmissionRequest(offer.call(), 1, shadow, Optional.of(group))).toCompletableFuture();
            var t = limiter.admit(new AdmissionRequest(offer.call(), 1, twin, Optional.of(group))).toCompletableFuture();
            boolean twinRefused = t.join().outcome() == Outcome.CONCURRENT;
            refused += twinRefused ? 1 : 0;
            if (twinRefused != !s.join().wouldRefuse().isEmpty()) {
                mismatches.add("offer " + i + " " + offer.call() + ": twin " + t.join().outcome() + ", shadow "
                        + s.join().wouldRefuse());
            }
        }
        assertEquals(List.of(), mismatches.stream().limit(5).toList(), mismatches.size() + " of 6000 differ");
        assertTrue(refused > 300, refused + " refused by the twin");
    }

    @Test
    void theLeaseScriptsReadTheScriptClockWhereItIsSet() {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        String carrier = "carrier-" + UUID.randomUUID();
        ScriptClock clock = new ScriptClock(clients.get(0), PREFIX, "c:" + carrier);
        String first = call();
        String second = call();
        assertTrue(a.takeCarrier(first, carrier, 1).toCompletableFuture().join());
        assertFalse(a.takeCarrier(second, carrier, 1).toCompletableFuture().join(), "the carrier is full");

        clock.advance(LONG_LEASE.minusMillis(1));
        assertEquals(1L, a.carrierCalls(carrier).toCompletableFuture().join(), "the lease has not lapsed yet");
        clock.advance(Duration.ofMillis(2));
        assertEquals(0L, a.carrierCalls(carrier).toCompletableFuture().join(), "lapsed on the script clock");
        assertTrue(a.takeCarrier(second, carrier, 1).toCompletableFuture().join(), "its place is free");
    }

    @Test
    void leasesOfACallThatEndedBeforeItsAdmissionCameBackAreSwept() throws Exception {
        RedisCallLeases a = instance(0, "gw-a", Duration.ofSeconds(3));
        Scope peer = cappedPeer(5);
        String callId = call();
        live.remove(callId);
        assertEquals(Outcome.ADMITTED, admit(limiter(0, a), callId, peer).outcome());
        assertEquals(0L, awaitCount(() -> a.peerCalls(peer.id(), Optional.empty()), 0));
        assertEquals(0, a.held());
    }

    @Test
    void aDeadInstancesLeasesLapseWhileALiveInstancesLongCallKeepsItsLease() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        RedisCallLeases survivor = instance(0, "gw-survivor", lease);
        RedisCallLeases dead = instance(1, "gw-dead", lease);
        Scope peer = cappedPeer(3);
        // The survivor's call is up first, so when the dead instance's later leases lapse it has lasted longer
        // than the lease time: only its renewals can have kept it.
        String longCall = call();
        assertEquals(Outcome.ADMITTED, admit(limiter(0, survivor), longCall, peer).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter(1, dead), call(), peer).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter(1, dead), call(), peer).outcome());
        assertEquals(Outcome.CONCURRENT, admit(limiter(0, survivor), call(), peer).outcome());

        // kill -9: the instance stops renewing and never releases
        timers.get(1).shutdownNow();

        assertEquals(1L, awaitCount(() -> survivor.peerCalls(peer.id(), Optional.empty()), 1),
                "the dead instance's two leases were reclaimed");
        assertEquals(Outcome.ADMITTED, admit(limiter(0, survivor), call(), peer).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter(0, survivor), call(), peer).outcome());
        assertEquals(Outcome.CONCURRENT, admit(limiter(0, survivor), call(), peer).outcome(),
                "the long call still counts");
    }

    @Test
    void aCallUpAcrossAGroupMoveReleasesItsPeerLeaseUnderTheNewTagAndItsOldGroupsLease() throws Exception {
        RedisCallLeases a = instance(0, "gw-a", LONG_LEASE);
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(clients.get(0), PREFIX, Optional.of(a));
        Scope from = new Scope(Scope.Kind.GROUP, "group-" + UUID.randomUUID(), List.of(), OptionalInt.of(3));
        Scope to = Scope.group("group-" + UUID.randomUUID(), List.of());
        Scope peer = cappedPeer(2);
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, callId, peer, Optional.of(from)).outcome());

        limiter.movePeer(peer, Optional.of(from), Optional.of(to)).toCompletableFuture().join();
        assertEquals(1L, a.peerCalls(peer.id(), Optional.of(to.id())).toCompletableFuture().join());
        assertEquals(1L, a.groupCalls(from.id()).toCompletableFuture().join(), "the old group keeps it until it ends");

        // its two leases are now in two hash slots (in a cluster, on two nodes): both go when it ends
        live.remove(callId);
        a.release(callId);
        assertEquals(0L, awaitCount(() -> a.peerCalls(peer.id(), Optional.of(to.id())), 0));
        assertEquals(0L, awaitCount(() -> a.groupCalls(from.id()), 0));
        assertEquals(0, a.pendingReleases());
    }
}
