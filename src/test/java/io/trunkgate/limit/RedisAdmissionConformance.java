package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisBlockRegistry;
import io.trunkgate.limit.internal.WindowUsageReader;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.RedisFleet;
import io.trunkgate.testing.ScriptClock;
import org.redisson.client.codec.StringCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admission suite on a Redis topology, one client per gateway, plus what only the shared ledger keeps: blocks,
 * windows that follow a peer between groups, the script cache and key expiry.
 */
abstract class RedisAdmissionConformance extends AdmissionConformance {

    private static final String PREFIX = "tg-test";
    private RedisFleet fleet;

    protected abstract RedisBackend backend();

    /** Whether every key is on one node, so an admission can reserve a carrier's slot too (not a cluster). */
    protected boolean oneNode() {
        return true;
    }

    @BeforeAll
    void connect() {
        fleet = new RedisFleet(backend(), 4);
    }

    @AfterAll
    void disconnect() {
        fleet.close();
    }

    @Override
    protected AdmissionLimiter limiter(int instance) {
        return new RedisAdmissionLimiter(fleet.client(instance), PREFIX);
    }

    private static long slot(AdmissionDecision decision) {
        Reservation reservation = decision.firstSlot().orElseThrow(() -> new AssertionError("no slot: " + decision));
        assertTrue(reservation.reserved(), "reserved: " + reservation);
        return reservation.slotMicros();
    }

    @Test
    void anAdmittedCallReservesItsFirstCarriersSlotInTheSameScriptCallAndARefusedCallReservesNothing() {
        assumeTrue(oneNode(), "in a cluster the carrier's ledger is on another node: the two scripts run apart");
        // one slot per 10 s: the slots below are exact however slow the machine
        CarrierConfig carrier = Carriers.carrier(0.1, 1, Duration.ofSeconds(60));
        RedisSlotReserver ledger = new RedisSlotReserver(fleet.client(1), PREFIX);
        SlotRequest slot = ledger.request(carrier, ledger);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(30), 2)));
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        long interval = 10_000_000;

        String first = call();
        AdmissionDecision a = admit(limiter, AdmissionRequest.of(first, peer).withFirstSlot(slot));
        assertEquals(Outcome.ADMITTED, a.outcome());
        assertEquals(Duration.ZERO, a.firstSlot().get().delay(), "the ledger was empty");
        AdmissionDecision b = admit(limiter, AdmissionRequest.of(call(), peer).withFirstSlot(slot));
        assertEquals(Outcome.ADMITTED, b.outcome());
        assertEquals(slot(a) + interval, slot(b), "the next slot of the same ledger pace.lua keeps");
        AdmissionDecision refused = admit(limiter, AdmissionRequest.of(call(), peer).withFirstSlot(slot));
        assertEquals(Outcome.LIMITED, refused.outcome());
        assertTrue(refused.firstSlot().isEmpty(), "a refused call gets no slot");
        Reservation alone = ledger.reserve(carrier, Duration.ofSeconds(60)).toCompletableFuture().join();
        assertEquals(slot(a) + 2 * interval, alone.slotMicros(), "the refused call took no slot from the ledger");
        AdmissionDecision again = admit(limiter, AdmissionRequest.of(first, peer).withFirstSlot(slot));
        assertEquals(Outcome.DUPLICATE, again.outcome());
        assertTrue(again.firstSlot().isEmpty(), "a copy of an admitted call is never sent: it takes no slot");
        Reservation next = ledger.reserve(carrier, Duration.ofSeconds(60)).toCompletableFuture().join();
        assertEquals(slot(a) + 3 * interval, next.slotMicros(), "the copy took no slot from the ledger");
    }

    @Test
    void aFirstSlotBeyondTheMaxWaitIsNotTakenAndTheCallIsStillAdmitted() {
        assumeTrue(oneNode(), "in a cluster the carrier's ledger is on another node: the two scripts run apart");
        CarrierConfig carrier = Carriers.carrier(0.1, 1, Duration.ofSeconds(1));
        RedisSlotReserver ledger = new RedisSlotReserver(fleet.client(0), PREFIX);
        SlotRequest slot = ledger.request(carrier, ledger);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(30), 10)));
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);

        long first = slot(admit(limiter, AdmissionRequest.of(call(), peer).withFirstSlot(slot)));
        AdmissionDecision late = admit(limiter, AdmissionRequest.of(call(), peer).withFirstSlot(slot));
        assertEquals(Outcome.ADMITTED, late.outcome(), "the peer's limits admit it; the carrier is another matter");
        Reservation none = late.firstSlot().orElseThrow();
        assertFalse(none.reserved());
        assertTrue(none.delay().compareTo(Duration.ofSeconds(1)) > 0, "its wait, for the reroute: " + none);
        Reservation next = ledger.reserve(carrier, Duration.ofSeconds(60)).toCompletableFuture().join();
        assertEquals(first + 10_000_000, next.slotMicros(), "nothing was taken for the call over the max-wait");
    }

    @Test
    void movingAPeerIntoAGroupAndOutAgainKeepsItsWindowsAndItsBlock() {
        String group = "group-" + UUID.randomUUID();
        Scope groupScope = Scope.group(group, List.of(Limit.exact(Duration.ofSeconds(30), 1000)));
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(30), 10),
                Limit.bucketed(Duration.ofSeconds(60), 12, Duration.ofSeconds(1))));
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        for (int i = 0; i < 9; i++) {
            assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        }
        String lastCall = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(lastCall, peer)).outcome());
        BlockRegistry blocks = new RedisBlockRegistry(fleet.client(1), PREFIX);
        blocks.block(peer.id(), Optional.empty(), Duration.ofHours(1)).toCompletableFuture().join();

        // live reload: the peer joins the group (its keys' hash tag becomes the group's)
        limiter.movePeer(peer, Optional.empty(), Optional.of(groupScope)).toCompletableFuture().join();
        AdmissionRequest inGroup = new AdmissionRequest(call(), 1, peer, Optional.of(groupScope));
        assertEquals(Outcome.BLOCKED, admit(limiter(2), inGroup).outcome(), "the block moved with the peer");
        assertTrue(blocks.unblock(peer.id(), Optional.of(group)).toCompletableFuture().join());
        AdmissionDecision full = admit(limiter(2), inGroup);
        assertEquals(Outcome.LIMITED, full.outcome(), "the 10 calls of the last 30 s moved with the peer");
        assertEquals(peer, full.refusedBy().orElseThrow());
        assertEquals(Outcome.DUPLICATE,
                admit(limiter(3), new AdmissionRequest(lastCall, 1, peer, Optional.of(groupScope))).outcome());

        // and leaves it again: still counted once, not forgotten and not doubled
        limiter.movePeer(peer, Optional.of(groupScope), Optional.empty()).toCompletableFuture().join();
        List<WindowUsage.LimitUsage> usage = new WindowUsageReader(fleet.client(3), PREFIX)
                .read(peer, Optional.empty(), 0).toCompletableFuture().join();
        assertEquals(List.of(10L, 10L), usage.stream().map(WindowUsage.LimitUsage::used).toList());
        assertEquals(Outcome.LIMITED, admit(limiter(1), AdmissionRequest.of(call(), peer)).outcome());
    }

    @Test
    void afterRedisClockStepsBackByMoreThanAWindowTheCallsAdmittedThenArePrunedInTheirTurn() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.bucketed(Duration.ofSeconds(10), 100, Duration.ofSeconds(1))));
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "p:" + peer.id());
        for (int i = 0; i < 9; i++) {
            assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        }
        clock.advance(Duration.ofSeconds(-60));
        for (int i = 0; i < 10; i++) {
            assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        }
        clock.advance(Duration.ofSeconds(15));
        AdmissionDecision later = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(Outcome.ADMITTED, later.outcome());
        // the 10 calls of 15 s ago left the window; the 9 admitted ahead of the stepped-back clock still count
        assertEquals(100 - 9 - 1, later.remaining());
    }

    /**
     * Offers every call of {@code offers} to each peer (all in {@code group}, which has no limits: one hash tag, one
     * test clock) at its time; the decisions per peer, in order.
     */
    private List<List<AdmissionDecision>> play(AdmissionLimiter limiter, Scope group, List<Offers.Offer> offers,
                                               List<Scope> peers) {
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "g:" + group.id());
        List<List<AdmissionDecision>> decisions = new ArrayList<>();
        peers.forEach(peer -> decisions.add(new ArrayList<>()));
        for (Offers.Offer offer : offers) {
            clock.set(offer.atMicros());
            List<CompletableFuture<AdmissionDecision>> replies = peers.stream().map(peer -> limiter.admit(
                    new AdmissionRequest(offer.call(), 1, peer, Optional.of(group))).toCompletableFuture()).toList();
            for (int p = 0; p < peers.size(); p++) {
                decisions.get(p).add(replies.get(p).join());
            }
        }
        return decisions;
    }

    private static String enforced(AdmissionDecision d) {
        return d.outcome() + " retry " + d.retryAfter().toMillis() + " ms, remaining " + d.remaining()
                + d.refusedLimit().map(l -> " by " + l).orElse("");
    }

    @Test
    void aShadowLimitBesideAnEnforcedOneWithReOffersLeavesEveryEnforcedOutcomeIdentical() {
        Scope group = Scope.group("group-" + UUID.randomUUID(), List.of());
        Limit enforced = Limit.exact(Duration.ofSeconds(1), 5);
        Scope alone = Scope.peer(newPeer(), List.of(enforced));
        // the case: a shadow window far longer than the enforced one, and one of the same window
        Scope withShadow = Scope.peer(newPeer(), List.of(enforced,
                Limit.bucketed(Duration.ofHours(1), 300, Duration.ofMinutes(1)).in(LimitMode.SHADOW),
                Limit.exact(Duration.ofSeconds(1), 3).in(LimitMode.SHADOW)));
        List<Offers.Offer> offers = Offers.of(47, 3_000);
        List<List<AdmissionDecision>> d = play(limiter(0), group, offers, List.of(alone, withShadow));

        List<String> expected = d.get(0).stream().map(RedisAdmissionConformance::enforced).toList();
        List<String> actual = d.get(1).stream().map(RedisAdmissionConformance::enforced).toList();
        List<Integer> differing = IntStream.range(0, offers.size()).filter(i -> !expected.get(i).equals(actual.get(i)))
                .boxed().toList();
        assertEquals(List.of(), differing.stream().limit(5).map(i -> "offer " + i + " " + offers.get(i).call() + ": "
                + expected.get(i) + " alone, " + actual.get(i) + " beside the shadow limits").toList(),
                differing.size() + " of " + offers.size() + " enforced outcomes changed");
        // the sequence exercises what it must: refusals, duplicates, and re-offers admitted again
        assertTrue(expected.stream().filter(o -> o.startsWith("LIMITED")).count() > 100);
        assertTrue(expected.stream().filter(o -> o.startsWith("DUPLICATE")).count() > 20);
        assertTrue(d.get(1).stream().anyMatch(x -> !x.wouldRefuse().isEmpty()));
    }

    @Test
    void aShadowLimitCountsEveryCallAsItsEnforcedTwinDoesReOffersIncluded() {
        Scope group = Scope.group("group-" + UUID.randomUUID(), List.of());
        Limit never = Limit.exact(Duration.ofSeconds(10), 1_000_000);
        List<List<Limit>> shapes = List.of(
                List.of(Limit.exact(Duration.ofSeconds(1), 5)),
                List.of(Limit.exact(Duration.ofSeconds(10), 25)),
                List.of(Limit.bucketed(Duration.ofSeconds(10), 20, Duration.ofSeconds(1))),
                List.of(Limit.bucketed(Duration.ofMinutes(1), 70, Duration.ofSeconds(5))),
                // beside a longer enforced limit (that never refuses on its own: the twin's refusals are the shadow's)
                List.of(never, Limit.exact(Duration.ofSeconds(1), 4)));
        List<Scope> peers = new ArrayList<>();
        for (List<Limit> shape : shapes) {
            Limit tried = shape.get(shape.size() - 1);
            List<Limit> shadow = new ArrayList<>(shape.subList(0, shape.size() - 1));
            shadow.add(tried.in(LimitMode.SHADOW));
            peers.add(Scope.peer(newPeer(), shadow));
            peers.add(Scope.peer(newPeer(), shape));
        }
        List<Offers.Offer> offers = Offers.of(4747, 6_000);
        List<List<AdmissionDecision>> d = play(limiter(1), group, offers, peers);

        for (int s = 0; s < shapes.size(); s++) {
            List<AdmissionDecision> shadow = d.get(2 * s);
            List<AdmissionDecision> twin = d.get(2 * s + 1);
            List<String> mismatches = new ArrayList<>();
            int refused = 0;
            int duplicates = 0;
            for (int i = 0; i < offers.size(); i++) {
                boolean twinRefused = twin.get(i).outcome() == Outcome.LIMITED;
                boolean wouldRefuse = !shadow.get(i).wouldRefuse().isEmpty();
                refused += twinRefused ? 1 : 0;
                duplicates += twin.get(i).outcome() == Outcome.DUPLICATE ? 1 : 0;
                if (twinRefused != wouldRefuse) {
                    mismatches.add("offer " + i + " " + offers.get(i).call() + ": twin " + twin.get(i).outcome()
                            + ", shadow " + shadow.get(i).outcome() + " would refuse " + shadow.get(i).wouldRefuse());
                }
            }
            assertEquals(List.of(), mismatches.stream().limit(5).toList(),
                    "shape " + shapes.get(s) + ": " + mismatches.size() + " of " + offers.size() + " calls differ");
            assertTrue(refused > 100 && duplicates > 20,
                    "shape " + shapes.get(s) + ": " + refused + " refused, " + duplicates + " duplicates");
        }
    }

    /**
     * Redis's clock steps back 60 s under a {10s, 10} peer taking calls: the 10 admitted ahead of the new clock keep
     * counting until they leave the window (a minute and 10 s of the stepped clock), and in no 10 s of the script's
     * time are more than 10 admitted; calls go on at 1 every 100 ms for a minute and a half around the step.
     */
    @Test
    void aClockStepBackOfAMinuteNeverLetsATenSecondWindowOverItsMax() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(10), 10)));
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "p:" + peer.id());
        List<Long> admitted = new ArrayList<>();
        int admittedAfterStep = 0;
        for (int i = 0; i < 900; i++) {
            if (i == 150) {
                clock.advance(Duration.ofSeconds(-60));
            }
            AdmissionDecision d = admit(limiter, AdmissionRequest.of(call(), peer));
            if (d.admitted()) {
                admitted.add(d.serverTimeMicros());
                admittedAfterStep += i >= 150 ? 1 : 0;
            }
            clock.advance(Duration.ofMillis(100));
        }
        List<Long> sorted = admitted.stream().sorted().toList();
        for (int i = 0; i + 10 < sorted.size(); i++) {
            assertTrue(sorted.get(i + 10) - sorted.get(i) > 10_000_000L,
                    "11 admitted within 10 s: " + sorted.subList(i, i + 11));
        }
        assertEquals(10, admittedAfterStep, "refused until the calls ahead of the clock left, then 10 in the 10 s left");
    }

    /**
     * After Redis's clock stepped back, a key holds entries recorded ahead of the new clock: its expiry (set when they
     * were recorded, on Redis's own clock, which stepped back with TIME) lies that much further ahead. An admission
     * then never brings it nearer. Redis's key expiry cannot be stepped here, so the step's effect on it is made as
     * Redis would show it: the key's TTL grows by the step.
     */
    @Test
    void anAdmissionNeverShortensAKeysLife() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Limit exact = Limit.exact(Duration.ofSeconds(10), 10);
        Limit bucketed = Limit.bucketed(Duration.ofMinutes(1), 100, Duration.ofSeconds(1));
        Scope peer = Scope.peer(newPeer(), List.of(exact, bucketed));
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "p:" + peer.id());
        assertTrue(admit(limiter, AdmissionRequest.of(call(), peer)).admitted());
        List<String> keys = List.of(PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":10000",
                PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":60000:1000:v2",
                PREFIX + ":{p:" + peer.id() + "}:seen:peer:" + peer.id());
        Duration step = Duration.ofHours(1);
        for (String key : keys) {
            var bucket = fleet.client(0).getBucket(key, StringCodec.INSTANCE);
            bucket.expire(Duration.ofMillis(bucket.remainTimeToLive()).plus(step));
        }
        clock.advance(step.negated());
        assertTrue(admit(limiter, AdmissionRequest.of(call(), peer)).admitted());
        for (String key : keys) {
            long ttl = fleet.client(0).getBucket(key, StringCodec.INSTANCE).remainTimeToLive();
            assertTrue(ttl > step.toMillis(), key + " expires in " + ttl + " ms, before its entries leave");
        }
    }

    /**
     * A peer and its group with four precision windows (1h and 1d each) after a quiet day: the first call reads one
     * HMGET per window and drops each hash at once (every bucket is stale: the newest one, 'z', says so), without
     * reading a block sum. The Redis time of this state is bench/redis-cost.sh's.
     */
    @Test
    void fourPrecisionWindowsAfterAQuietDayCostOneReadEach() {
        Limit hour = Limit.bucketed(Duration.ofHours(1), 100_000, Duration.ofSeconds(10));
        Limit day = Limit.bucketed(Duration.ofDays(1), 1_000_000, Duration.ofMinutes(1));
        Scope group = Scope.group("group-" + UUID.randomUUID(), List.of(hour, day));
        Scope peer = Scope.peer(newPeer(), List.of(hour, day));
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "g:" + group.id());
        for (int i = 0; i < 1440; i++) {
            assertTrue(admit(limiter, new AdmissionRequest(call(), 1, peer, Optional.of(group))).admitted());
            clock.advance(Duration.ofMinutes(1));
        }
        clock.advance(Duration.ofDays(1).plusMinutes(2));
        String tag = PREFIX + ":{g:" + group.id() + "}:";
        List<String> hashes = List.of(tag + "peer:" + peer.id() + ":3600000:10000:v2",
                tag + "peer:" + peer.id() + ":86400000:60000:v2", tag + "group:" + group.id() + ":3600000:10000:v2",
                tag + "group:" + group.id() + ":86400000:60000:v2");
        for (String key : hashes) {
            assertTrue(fleet.client(0).getMap(key, StringCodec.INSTANCE).size() > 60, key + " full before");
        }
        AdmissionDecision first = admit(limiter, new AdmissionRequest(call(), 1, peer, Optional.of(group)));
        assertEquals(Outcome.ADMITTED, first.outcome());
        assertEquals(100_000 - 1, first.remaining(), "nothing of the day before counts");
        for (String key : hashes) {
            // the hash went at once; it holds this call's bucket, its block sum, 'n', 'o', 'z' and 'e'
            assertEquals(6, fleet.client(0).getMap(key, StringCodec.INSTANCE).size(), key);
        }
    }

    @Test
    void aSecondRevokeOfTheSameAdmissionLeavesANewerAdmissionOfTheCallAlone() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.bucketed(Duration.ofSeconds(30), 3, Duration.ofSeconds(1))));
        ScriptClock clock = new ScriptClock(fleet.client(0), PREFIX, "p:" + peer.id());
        AdmissionRequest a = AdmissionRequest.of(call(), peer);
        AdmissionDecision first = admit(limiter, a);
        assertEquals(Outcome.ADMITTED, first.outcome());
        limiter.revoke(a, first).toCompletableFuture().join();
        clock.advance(Duration.ofMillis(100));
        AdmissionDecision again = admit(limiter, a);
        assertEquals(Outcome.ADMITTED, again.outcome(), "revoked, so not a duplicate: admitted afresh, same bucket");
        limiter.revoke(a, first).toCompletableFuture().join(); // late and repeated: that admission is gone already
        AdmissionDecision other = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(1, other.remaining(), "the newer admission of the call still counts");
    }

    @Test
    void aRevokedAdmissionLeavesAShadowWindowThatDidNotCountItAlone() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Limit shadow = Limit.bucketed(Duration.ofSeconds(30), 1, Duration.ofSeconds(1)).in(LimitMode.SHADOW);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(30), 10), shadow));
        AdmissionDecision counted = admit(limiter, AdmissionRequest.of(call(), peer));
        AdmissionRequest over = AdmissionRequest.of(call(), peer);
        AdmissionDecision notCounted = admit(limiter, over);
        assertEquals(List.of(new WouldRefuse(peer, Optional.of(shadow))), notCounted.wouldRefuse());
        limiter.revoke(over, notCounted).toCompletableFuture().join();
        List<WindowUsage.LimitUsage> usage = new WindowUsageReader(fleet.client(0), PREFIX)
                .read(peer, Optional.empty(), 0).toCompletableFuture().join();
        assertEquals(List.of(1L, 1L), usage.stream().map(WindowUsage.LimitUsage::used).toList(),
                "the revoked call left the enforced window; the shadow window still holds the first call");
        assertTrue(counted.wouldRefuse().isEmpty());
    }

    @Test
    void aRevokeTakesTheCallOutOfTheShadowWindowThatCountedIt() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(fleet.client(0), PREFIX);
        Limit shadow = Limit.bucketed(Duration.ofSeconds(30), 1, Duration.ofSeconds(1)).in(LimitMode.SHADOW);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(30), 10), shadow));
        AdmissionRequest a = AdmissionRequest.of(call(), peer);
        AdmissionDecision counted = admit(limiter, a);
        assertTrue(counted.wouldRefuse().isEmpty());
        limiter.revoke(a, counted).toCompletableFuture().join();
        limiter.revoke(a, counted).toCompletableFuture().join(); // twice: idempotent
        assertEquals(List.of(0L, 0L), new WindowUsageReader(fleet.client(0), PREFIX).read(peer, Optional.empty(), 0)
                .toCompletableFuture().join().stream().map(WindowUsage.LimitUsage::used).toList());
        AdmissionDecision again = admit(limiter, a);
        assertEquals(Outcome.ADMITTED, again.outcome(), "revoked: not a duplicate");
        assertTrue(again.wouldRefuse().isEmpty(), "nor a copy for the shadow limit: counted afresh, within its max");
    }

    @Test
    void recoversAfterScriptFlush() {
        AdmissionLimiter limiter = limiter(0);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 10)));
        assertTrue(admit(limiter, AdmissionRequest.of(call(), peer)).admitted());
        fleet.client(0).getScript().scriptFlush();
        AdmissionDecision afterFlush = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(Outcome.ADMITTED, afterFlush.outcome());
        assertEquals(8, afterFlush.remaining(), "the window survived the flush; only the script was reloaded");
    }

    @Test
    void blockIsSeenByEveryInstanceUntilItEndsOrIsLifted() throws Exception {
        String group = "group-" + UUID.randomUUID();
        Scope groupScope = Scope.group(group, List.of(Limit.exact(Duration.ofSeconds(5), 100)));
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 100)));
        BlockRegistry blocks = new RedisBlockRegistry(fleet.client(0), PREFIX);
        blocks.block(peer.id(), Optional.of(group), Duration.ofMillis(400)).toCompletableFuture().join();

        AdmissionDecision blocked = admit(limiter(3), new AdmissionRequest(call(), 1, peer, Optional.of(groupScope)));
        assertEquals(Outcome.BLOCKED, blocked.outcome());
        assertEquals(peer, blocked.refusedBy().orElseThrow());
        assertTrue(blocked.retryAfter().toMillis() > 0 && blocked.retryAfter().toMillis() <= 400);
        assertTrue(blocks.remaining(peer.id(), Optional.of(group)).toCompletableFuture().join().isPresent());

        Thread.sleep(blocked.retryAfter().toMillis() + 20);
        assertTrue(admit(limiter(2), new AdmissionRequest(call(), 1, peer, Optional.of(groupScope))).admitted());

        blocks.block(peer.id(), Optional.of(group), Duration.ofHours(1)).toCompletableFuture().join();
        assertEquals(Outcome.BLOCKED, admit(limiter(1), new AdmissionRequest(call(), 1, peer, Optional.of(groupScope))).outcome());
        assertTrue(blocks.unblock(peer.id(), Optional.of(group)).toCompletableFuture().join());
        assertTrue(admit(limiter(1), new AdmissionRequest(call(), 1, peer, Optional.of(groupScope))).admitted());
        assertFalse(blocks.remaining(peer.id(), Optional.of(group)).toCompletableFuture().join().isPresent());
    }

    @Test
    void idleKeysExpire() {
        Limit exact = Limit.exact(Duration.ofMillis(1500), 10);
        Limit bucketed = Limit.bucketed(Duration.ofSeconds(3), 10, Duration.ofMillis(500));
        Scope peer = Scope.peer(newPeer(), List.of(exact, bucketed));
        assertTrue(admit(limiter(0), AdmissionRequest.of(call(), peer)).admitted());
        List<Long> ttls = new ArrayList<>();
        for (String key : fleet.client(0).getKeys().getKeysByPattern(PREFIX + ":{p:" + peer.id() + "}:*")) {
            ttls.add(fleet.client(0).getBucket(key).remainTimeToLive());
        }
        // the two windows, and the seen key (the 3 s window at 500 ms outlasts the exact one): each its life (the
        // seen key's 3.5 s + 1 ms) times 1.5, so that it is refreshed once per third of it, not at every call
        assertEquals(3, ttls.size());
        assertTrue(ttls.stream().allMatch(ttl -> ttl > 0 && ttl <= 5252), "TTLs " + ttls);
    }
}
