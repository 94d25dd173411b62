package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisBlockRegistry;
import io.trunkgate.limit.internal.WindowUsageReader;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.RedisFleet;
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
        limiter.movePeer(peer, Optional.empty(), Optional.of(group)).toCompletableFuture().join();
        AdmissionRequest inGroup = new AdmissionRequest(call(), 1, peer, Optional.of(groupScope));
        assertEquals(Outcome.BLOCKED, admit(limiter(2), inGroup).outcome(), "the block moved with the peer");
        assertTrue(blocks.unblock(peer.id(), Optional.of(group)).toCompletableFuture().join());
        AdmissionDecision full = admit(limiter(2), inGroup);
        assertEquals(Outcome.LIMITED, full.outcome(), "the 10 calls of the last 30 s moved with the peer");
        assertEquals(peer, full.refusedBy().orElseThrow());
        assertEquals(Outcome.DUPLICATE,
                admit(limiter(3), new AdmissionRequest(lastCall, 1, peer, Optional.of(groupScope))).outcome());

        // and leaves it again: still counted once, not forgotten and not doubled
        limiter.movePeer(peer, Optional.of(group), Optional.empty()).toCompletableFuture().join();
        List<WindowUsage.LimitUsage> usage = new WindowUsageReader(fleet.client(3), PREFIX)
                .read(peer, Optional.empty(), 0).toCompletableFuture().join();
        assertEquals(List.of(10L, 10L), usage.stream().map(WindowUsage.LimitUsage::used).toList());
        assertEquals(Outcome.LIMITED, admit(limiter(1), AdmissionRequest.of(call(), peer)).outcome());
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
