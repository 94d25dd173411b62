package io.trunkgate.limit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Leases across a group move and across a lapse: a move carries the peer's lease set and dedupe set to the new
 * hash tag; a renewal refreshes only leases still held, and takes lapsed ones again only under the cap. Renewals
 * are run by hand ({@link RedisCallLeases#renewNow}), so each step waits for its own replies.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeaseMoveAndRenewalTest {

    private static final String PREFIX = "tg-lease-move";
    private static final Duration LONG_LEASE = Duration.ofSeconds(60);
    private final KeyLayout layout = new KeyLayout(PREFIX);
    private final Set<String> live = ConcurrentHashMap.newKeySet();
    private final GatewayThreads threads = new GatewayThreads();
    private final RedisBreaker breaker = RedisBreaker.withTimeout(Duration.ofSeconds(2), threads.redisTimeouts(),
            threads.redisResults());
    private RedissonClient client;

    @BeforeAll
    void connect() {
        client = StandaloneRedis.shared().newClient();
    }

    @AfterAll
    void disconnect() {
        client.shutdown();
        threads.close();
    }

    private RedisCallLeases leases(String owner, Duration leaseTime) {
        return new RedisCallLeases(client, PREFIX, breaker, owner, leaseTime, () -> live);
    }

    private String call() {
        String id = UUID.randomUUID() + "@test";
        live.add(id);
        return id;
    }

    private static Outcome admit(RedisAdmissionLimiter limiter, String callId, Scope peer, Optional<Scope> group) {
        return limiter.admit(new AdmissionRequest(callId, 1, peer, group)).toCompletableFuture().join().outcome();
    }

    private static long peerCalls(RedisCallLeases leases, Scope peer, Optional<Scope> group) {
        return leases.peerCalls(peer.id(), group.map(Scope::id)).toCompletableFuture().join();
    }

    /** Polls the peer's lease count (at most 15 s) until it reads {@code expected}; returns the last reading. */
    private static long awaitPeerCalls(RedisCallLeases leases, Scope peer, Optional<Scope> group, long expected) {
        return Await.until(Duration.ofSeconds(15), () -> peerCalls(leases, peer, group), last -> last == expected);
    }

    @Test
    void aMoveWithFiveOfFiveCallsUpLetsNoMoreIn() {
        RedisCallLeases here = leases("gw-a", LONG_LEASE);
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX, Optional.of(here));
        Scope peer = new Scope(Scope.Kind.PEER, "peer-" + UUID.randomUUID(), List.of(), OptionalInt.of(5));
        Optional<Scope> group = Optional.of(Scope.group("group-" + UUID.randomUUID(), List.of()));
        List<String> up = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            up.add(call());
            assertEquals(Outcome.ADMITTED, admit(limiter, up.get(i), peer, Optional.empty()), "call " + i);
        }
        assertEquals(Outcome.CONCURRENT, admit(limiter, call(), peer, Optional.empty()));

        // live reload: the peer joins a group, so its keys' hash tag becomes the group's
        limiter.movePeer(peer, Optional.empty(), group).toCompletableFuture().join();
        for (int i = 0; i < 5; i++) {
            assertEquals(Outcome.CONCURRENT, admit(limiter, call(), peer, group), "call " + i + " after the move");
        }
        assertEquals(5L, peerCalls(here, peer, group), "the five calls up count under the new tag");

        // this instance renews its calls' leases under the new tag, and nothing comes back under the old one
        here.renewNow().join();
        assertEquals(5L, peerCalls(here, peer, group));
        assertEquals(0L, peerCalls(here, peer, Optional.empty()), "no lease renewed back under the old tag");

        // and releases them there: one call ends, one more gets in
        live.remove(up.get(0));
        here.release(up.get(0));
        assertEquals(4L, awaitPeerCalls(here, peer, group, 4));
        assertEquals(Outcome.ADMITTED, admit(limiter, call(), peer, group));
        assertEquals(Outcome.CONCURRENT, admit(limiter, call(), peer, group));
    }

    @Test
    void aCallAdmittedBeforeAMoveIsStillADuplicateWhenTheOldGroupsWindowWasTheDedupeSet() {
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(10), 100)));
        // before: the group's 60 s window is the longest, so it is where a re-offered call is found
        Optional<Scope> before = Optional.of(Scope.group("group-" + UUID.randomUUID(),
                List.of(Limit.exact(Duration.ofSeconds(60), 1000))));
        // after: a 60 s window at 1 s precision outlasts every exact window, so the peer's seen key is
        Optional<Scope> after = Optional.of(Scope.group("group-" + UUID.randomUUID(),
                List.of(Limit.bucketed(Duration.ofSeconds(60), 1000, Duration.ofSeconds(1)))));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, callId, peer, before));

        limiter.movePeer(peer, before, after).toCompletableFuture().join();
        assertEquals(Outcome.DUPLICATE, admit(limiter, callId, peer, after), "offered again after the move");
        assertEquals(Outcome.ADMITTED, admit(limiter, call(), peer, after));
        assertEquals(Outcome.ADMITTED, admit(limiter, call(), peer, before), "the old group's window stays");
    }

    @Test
    void aRenewalThatCrossesAReleaseLeavesTheLeaseGone() {
        RedisCallLeases here = leases("gw-a", LONG_LEASE);
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX, Optional.of(here));
        Scope peer = new Scope(Scope.Kind.PEER, "peer-" + UUID.randomUUID(), List.of(), OptionalInt.of(5));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, callId, peer, Optional.empty()));
        String key = layout.leaseKey(layout.tag(peer.id(), Optional.empty()), Scope.Kind.PEER, peer.id());
        // the renewal listed the call's lease ...
        Map<String, String> listed = Map.of(here.member(callId), callId);

        // ... then the call ended and its lease was released ...
        live.remove(callId);
        here.release(callId);
        assertEquals(0L, awaitPeerCalls(here, peer, Optional.empty(), 0));

        // ... and the renewal reaches Redis after the release
        here.renew(key, listed).join();
        assertEquals(0L, peerCalls(here, peer, Optional.empty()), "the released lease stays gone");
        assertNull(client.getScoredSortedSet(key, StringCodec.INSTANCE).getScore(here.member(callId)));
    }

    @Test
    void leasesThatLapsedInAnOutageAreTakenAgainOnlyUnderTheCap() {
        Duration lease = Duration.ofSeconds(3);
        RedisCallLeases here = leases("gw-a", lease);
        RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX, Optional.of(here));
        Scope peer = new Scope(Scope.Kind.PEER, "peer-" + UUID.randomUUID(), List.of(), OptionalInt.of(5));
        for (int i = 0; i < 5; i++) {
            assertEquals(Outcome.ADMITTED, admit(limiter, call(), peer, Optional.empty()), "call " + i);
        }
        // Redis out of reach of this instance for longer than the lease time: no renewal ran, the leases lapsed
        assertEquals(0L, awaitPeerCalls(here, peer, Optional.empty(), 0));
        // meanwhile five more calls came in (the set looked empty): ten calls up here against a cap of five
        List<String> later = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            later.add(call());
            assertEquals(Outcome.ADMITTED, admit(limiter, later.get(i), peer, Optional.empty()), "later call " + i);
        }
        assertEquals(10, here.held());

        here.renewNow().join();
        assertEquals(5L, peerCalls(here, peer, Optional.empty()), "the renewal of ten takes at most five");
        assertEquals(Outcome.CONCURRENT, admit(limiter, call(), peer, Optional.empty()));

        // a leased call ends: the next renewal gives its place to a call still up without a lease
        live.remove(later.get(0));
        here.release(later.get(0));
        assertEquals(4L, awaitPeerCalls(here, peer, Optional.empty(), 4));
        here.renewNow().join();
        assertEquals(5L, peerCalls(here, peer, Optional.empty()), "the scope stays full while those calls are up");
    }
}
