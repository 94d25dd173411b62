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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
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
        // the two windows, and the seen key (the 3 s window at 500 ms outlasts the exact one): 3.5 s + 1 ms
        assertEquals(3, ttls.size());
        assertTrue(ttls.stream().allMatch(ttl -> ttl > 0 && ttl <= 3501), "TTLs " + ttls);
    }
}
