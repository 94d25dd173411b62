package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.RedisAdmin;
import io.trunkgate.testing.ScriptClock;
import io.trunkgate.testing.StandaloneRedis;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.api.redisnode.RedisSingle;
import org.redisson.client.codec.StringCodec;

/**
 * What one decision by a day window at one-minute precision costs Redis, whatever the hash holds: a refusal, a
 * window over a max a reload lowered, the first call after a quiet spell. The script reads block sums and the
 * buckets it needs, never the whole hash (1,487 fields) nor one bucket at a time; an admission with its carrier's
 * first slot reads Redis TIME once. Standalone only: the call counts come from the one server's INFO commandstats.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RefusalCostTest {

    private static final String PREFIX = "tg-test";
    private static final long MINUTE_US = 60_000_000L;
    private static final long DAY_US = 86_400_000_000L;
    private RedissonClient client;

    @BeforeAll
    void connect() {
        client = StandaloneRedis.shared().newClient();
    }

    @AfterAll
    void disconnect() {
        client.shutdown();
    }

    @Test
    void refusalByAFullDayWindowReadsOnlyTheBucketsItNeeds() {
        Limit day = Limit.bucketed(Duration.ofDays(1), 1440, Duration.ofMinutes(1));
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(day));
        long oldest = fillOneCallPerMinute(peer, day);
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        Map<String, Long> before = calls();
        AdmissionDecision refused = null;
        for (int i = 0; i < 100; i++) {
            refused = limiter.admit(AdmissionRequest.of("call-" + i, peer)).toCompletableFuture().join();
            assertEquals(Outcome.LIMITED, refused.outcome());
        }
        Map<String, Long> after = calls();

        assertEquals(0, delta(before, after, "hgetall"), "no refusal reads the whole hash");
        long reads = delta(before, after, "hget") + delta(before, after, "hmget") + delta(before, after, "hscan");
        assertTrue(reads <= 100 * 4, reads + " hash reads for 100 refusals");
        // The oldest bucket (one call) frees the unit this call needs when it leaves the window.
        assertEquals(ceilMs((oldest + 1) * MINUTE_US + DAY_US - refused.serverTimeMicros()),
                refused.retryAfter().toMillis());

        AdmissionDecision heavy = limiter.admit(new AdmissionRequest("heavy", 3, peer, Optional.empty()))
                .toCompletableFuture().join();
        assertEquals(Outcome.LIMITED, heavy.outcome());
        assertEquals(ceilMs((oldest + 3) * MINUTE_US + DAY_US - heavy.serverTimeMicros()),
                heavy.retryAfter().toMillis(), "three units free when the third-oldest bucket leaves");
    }

    /**
     * A reload lowered the day's max from 1,440 to 100 under a full window: 1,341 buckets must leave before a call
     * fits. The refusal reads block sums and one block's buckets, not the 1,341 buckets, and its Retry-After is
     * the exact time the 1,341st-oldest bucket leaves.
     */
    @Test
    void aWindowOverItsLoweredMaxRefusesWithBoundedWorkAndAnExactRetryAfter() {
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.bucketed(Duration.ofDays(1), 1440,
                Duration.ofMinutes(1))));
        long oldest = fillOneCallPerMinute(peer, peer.limits().get(0));
        Scope lowered = Scope.peer(peer.id(), List.of(Limit.bucketed(Duration.ofDays(1), 100, Duration.ofMinutes(1))));
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        Map<String, Long> before = calls();
        AdmissionDecision refused = null;
        for (int i = 0; i < 20; i++) {
            refused = limiter.admit(AdmissionRequest.of("call-" + i, lowered)).toCompletableFuture().join();
            assertEquals(Outcome.LIMITED, refused.outcome());
        }
        Map<String, Long> after = calls();
        long reads = delta(before, after, "hget") + delta(before, after, "hmget");
        assertTrue(reads <= 20 * 6, reads + " hash reads for 20 refusals");
        assertEquals(ceilMs((oldest + 1341) * MINUTE_US + DAY_US - refused.serverTimeMicros()),
                refused.retryAfter().toMillis());
    }

    /**
     * The same with the hash's newest mark ('z'): 100 calls must stay, fewer than the 1,341 that must leave, so the
     * walk goes back from the newest bucket, one chunk of block sums and one block's buckets, to the same exact
     * Retry-After.
     */
    @Test
    void aLoweredMaxRefusalWalksBackFromTheNewestBucketWhenThatIsNearer() {
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.bucketed(Duration.ofDays(1), 1440,
                Duration.ofMinutes(1))));
        long oldest = fillOneCallPerMinute(peer, peer.limits().get(0));
        String key = PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":86400000:60000:v2";
        client.getMap(key, StringCodec.INSTANCE).put("z", Long.toString(oldest + 1439));
        Scope lowered = Scope.peer(peer.id(), List.of(Limit.bucketed(Duration.ofDays(1), 100, Duration.ofMinutes(1))));
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        Map<String, Long> before = calls();
        AdmissionDecision refused = null;
        for (int i = 0; i < 20; i++) {
            refused = limiter.admit(AdmissionRequest.of("call-" + i, lowered)).toCompletableFuture().join();
            assertEquals(Outcome.LIMITED, refused.outcome());
        }
        long reads = delta(before, calls(), "hmget");
        assertTrue(reads <= 20 * 3, reads + " hash reads for 20 refusals");
        assertEquals(ceilMs((oldest + 1341) * MINUTE_US + DAY_US - refused.serverTimeMicros()),
                refused.retryAfter().toMillis());
    }

    /**
     * After 12 quiet hours, half a full day window is stale and the rest of the gap is empty: the first call counts
     * the other half exactly, from block sums, without reading the 720 stale buckets; after a day and a half quiet
     * the whole hash goes at once.
     */
    @Test
    void theFirstCallAfterAQuietSpellSkipsTheGap() {
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.bucketed(Duration.ofDays(1), 100_000,
                Duration.ofMinutes(1))));
        ScriptClock clock = new ScriptClock(client, PREFIX, "p:" + peer.id());
        fillOneCallPerMinute(peer, clock.micros());
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        clock.advance(Duration.ofHours(12));
        Map<String, Long> before = calls();
        AdmissionDecision halfStale = limiter.admit(AdmissionRequest.of("call-1", peer)).toCompletableFuture().join();
        Map<String, Long> after = calls();
        assertEquals(Outcome.ADMITTED, halfStale.outcome());
        assertEquals(100_000 - 721 - 1, halfStale.remaining(), "the 721 buckets touching the last day, and this call");
        long reads = delta(before, after, "hget") + delta(before, after, "hmget");
        assertTrue(reads <= 6, reads + " hash reads");

        clock.advance(Duration.ofHours(36));
        AdmissionDecision allStale = limiter.admit(AdmissionRequest.of("call-2", peer)).toCompletableFuture().join();
        assertEquals(100_000 - 1, allStale.remaining());
        assertTrue(delta(after, calls(), "hget") + delta(after, calls(), "hmget") <= 6);
    }

    /**
     * A full day window, then two sparse calls: the first, a day later, deletes only the oldest two stale blocks, so
     * at the second, 1,000 minutes on, the stale blocks reach further back than one call reads (66 blocks). The
     * blocks between are empty, which the block sums from the window's start show: the count and the Retry-After
     * are still exact, not the key's whole TTL.
     */
    @Test
    void aWindowLeftBehindBySparseCallsStillCountsAndAnswersExactly() {
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.bucketed(Duration.ofDays(1), 100_000,
                Duration.ofMinutes(1))));
        ScriptClock clock = new ScriptClock(client, PREFIX, "p:" + peer.id());
        long newest = fillOneCallPerMinute(peer, clock.micros()) + 1439;
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        clock.advance(Duration.ofMinutes(1439));
        AdmissionDecision first = limiter.admit(AdmissionRequest.of("call-1", peer)).toCompletableFuture().join();
        assertEquals(100_000 - 2 - 1, first.remaining(), "the 2 buckets touching the last day, and this call");

        clock.advance(Duration.ofMinutes(1000));
        Scope lowered = Scope.peer(peer.id(), List.of(Limit.bucketed(Duration.ofDays(1), 1, Duration.ofMinutes(1))));
        AdmissionDecision refused = limiter.admit(AdmissionRequest.of("call-2", lowered)).toCompletableFuture().join();
        assertEquals(Outcome.LIMITED, refused.outcome());
        assertEquals(ceilMs((newest + 1439 + 1) * MINUTE_US + DAY_US - refused.serverTimeMicros()),
                refused.retryAfter().toMillis(), "call-1's bucket leaves the window");
        assertEquals(Outcome.ADMITTED, limiter.admit(AdmissionRequest.of("call-3", peer)).toCompletableFuture().join()
                .outcome());
    }

    /**
     * Half of a 1 min exact window of 10,000 calls has gone stale in a quiet spell: the first call counts the other
     * half exactly but removes at most 32 of the stale entries (later calls remove the rest), so it does not pay
     * for 5,000 deletions; once all are stale the key goes at once.
     */
    @Test
    void aQuietSpellOverABigExactWindowIsPrunedABoundedAmountPerCall() {
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofMinutes(1), 100_000)));
        ScriptClock clock = new ScriptClock(client, PREFIX, "p:" + peer.id());
        String key = PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":60000";
        Map<Object, Double> calls = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            calls.put(String.format("m%05d", i), (double) (clock.micros() - 60_000_000L + 6_000L * i + 6_000L));
        }
        client.getScoredSortedSet(key, StringCodec.INSTANCE).addAll(calls);
        client.getScoredSortedSet(key, StringCodec.INSTANCE).expire(Duration.ofMinutes(5));
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        clock.advance(Duration.ofSeconds(30));
        AdmissionDecision halfStale = limiter.admit(AdmissionRequest.of("call-1", peer)).toCompletableFuture().join();
        assertEquals(100_000 - 5_001 - 1, halfStale.remaining(), "the 5,001 calls of the last 30 s (both ends in), and this one");
        assertEquals(10_000 - 32 + 1, client.getScoredSortedSet(key).size(), "32 stale entries removed, not 5,000");
        AdmissionDecision next = limiter.admit(AdmissionRequest.of("call-2", peer)).toCompletableFuture().join();
        assertEquals(100_000 - 5_001 - 2, next.remaining());

        clock.advance(Duration.ofMinutes(2));
        assertEquals(100_000 - 1, limiter.admit(AdmissionRequest.of("call-3", peer)).toCompletableFuture().join()
                .remaining());
        assertEquals(1, client.getScoredSortedSet(key).size(), "all stale: the key went at once");
    }

    /**
     * Redis keeps a hash of up to 512 short fields as a listpack, where each field read or written scans the whole
     * hash: the block sums a call reads would cost hundreds of scans. admit.lua's 'e' field keeps a window's hash a
     * hashtable from its first call, and a listpack from before it (an hour of 10 s buckets, 374 fields) becomes one
     * at its next decision, counted as before.
     */
    @Test
    void aWindowsHashIsAHashtableFromItsFirstCallAndOneFromBeforeBecomesOne() {
        Limit hour = Limit.bucketed(Duration.ofHours(1), 100_000, Duration.ofSeconds(10));
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);
        Scope fresh = Scope.peer("peer-" + UUID.randomUUID(), List.of(hour));
        new ScriptClock(client, PREFIX, "p:" + fresh.id());
        assertEquals(Outcome.ADMITTED, limiter.admit(AdmissionRequest.of("call-1", fresh)).toCompletableFuture()
                .join().outcome());
        try (RedisAdmin admin = new RedisAdmin(StandaloneRedis.shared().server().port())) {
            assertEquals("hashtable", admin.call("OBJECT", "ENCODING", hourKey(fresh)));

            Scope before = Scope.peer("peer-" + UUID.randomUUID(), List.of(hour));
            ScriptClock clock = new ScriptClock(client, PREFIX, "p:" + before.id());
            fillOneCallPerBucket(hourKey(before), Math.floorDiv(clock.micros(), 10_000_000L), 360, true);
            assertEquals("listpack", admin.call("OBJECT", "ENCODING", hourKey(before)));
            clock.advance(Duration.ofSeconds(5));
            AdmissionDecision next = limiter.admit(AdmissionRequest.of("call-2", before)).toCompletableFuture().join();
            assertEquals(100_000 - 360 - 1, next.remaining(), "the 360 buckets of the hour, and this call");
            assertEquals("hashtable", admin.call("OBJECT", "ENCODING", hourKey(before)));
        }
    }

    /**
     * A hash from before 'z' (no newest mark) after a quiet day: its stale blocks lie further back than one call
     * reads (66 blocks of 32 ten-second buckets), but the first 16 block sums read hold all it counts, so it goes at
     * once, with two hash reads, instead of being walked a few blocks per call.
     */
    @Test
    void aHashWithoutItsNewestMarkGoesAtTheFirstCallAfterAQuietDay() {
        Limit hour = Limit.bucketed(Duration.ofHours(1), 100_000, Duration.ofSeconds(10));
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(hour));
        ScriptClock clock = new ScriptClock(client, PREFIX, "p:" + peer.id());
        fillOneCallPerBucket(hourKey(peer), Math.floorDiv(clock.micros(), 10_000_000L), 360, false);
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        clock.advance(Duration.ofDays(1).plusMinutes(2));
        Map<String, Long> before = calls();
        AdmissionDecision first = limiter.admit(AdmissionRequest.of("call-1", peer)).toCompletableFuture().join();
        Map<String, Long> after = calls();
        assertEquals(100_000 - 1, first.remaining(), "nothing of the day before counts");
        assertEquals(2, delta(before, after, "hmget"), "its state, then 16 block sums, which hold all it counts");
        // this call's bucket, its block sum, 'n', 'o', 'z' and 'e': the hash was dropped and written afresh
        assertEquals(6, client.getMap(hourKey(peer), StringCodec.INSTANCE).size());
    }

    /**
     * admit-pace.lua runs admit.lua, then pace.lua for the admitted call's first carrier: one reading of Redis TIME
     * serves both, so the slot of an empty ledger is the admission's own time.
     */
    @Test
    void anAdmissionWithItsFirstSlotReadsRedisTimeOnce() {
        RedisSlotReserver ledger = new RedisSlotReserver(client, PREFIX);
        var carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        Scope peer = Scope.peer("peer-" + UUID.randomUUID(), List.of(Limit.exact(Duration.ofSeconds(1), 10)));
        AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);

        Map<String, Long> before = calls();
        AdmissionDecision admitted = limiter.admit(AdmissionRequest.of("call-1", peer)
                .withFirstSlot(ledger.request(carrier, ledger))).toCompletableFuture().join();
        Map<String, Long> after = calls();
        assertEquals(Outcome.ADMITTED, admitted.outcome());
        assertEquals(1, delta(before, after, "time"), "one TIME for the admission and its slot");
        Reservation slot = admitted.firstSlot().orElseThrow();
        assertTrue(slot.reserved());
        assertEquals(admitted.serverTimeMicros(), slot.serverTimeMicros());
        assertEquals(admitted.serverTimeMicros(), slot.slotMicros(), "the ledger was empty: the slot is now");
    }

    private static String hourKey(Scope peer) {
        return PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":3600000:10000:v2";
    }

    /**
     * Writes {@code buckets} one-call buckets up to {@code newest} in the layout of admit.lua from before 'e' (and,
     * without {@code newestMark}, from before 'z').
     */
    private void fillOneCallPerBucket(String key, long newest, int buckets, boolean newestMark) {
        Map<String, String> fields = new HashMap<>();
        for (long b = newest - buckets + 1; b <= newest; b++) {
            fields.put(Long.toString(b), "1");
            fields.merge("g" + Math.floorDiv(b, 32), "1", (x, y) -> Long.toString(Long.parseLong(x) + 1));
        }
        fields.put("n", Integer.toString(buckets));
        fields.put("o", Long.toString(newest - buckets + 1));
        if (newestMark) {
            fields.put("z", Long.toString(newest));
        }
        client.getMap(key, StringCodec.INSTANCE).putAll(fields);
        client.getMap(key, StringCodec.INSTANCE).expire(Duration.ofMinutes(10));
    }

    /** Writes a day of one-call buckets in admit.lua's layout, newest = the current minute; returns the oldest id. */
    private long fillOneCallPerMinute(Scope peer, Limit day) {
        org.redisson.client.protocol.Time time = server().getInstance().time();
        return fillOneCallPerMinute(peer, time.getSeconds() * 1_000_000L + time.getMicroseconds());
    }

    private long fillOneCallPerMinute(Scope peer, long nowUs) {
        long newest = Math.floorDiv(nowUs, MINUTE_US);
        long oldest = newest - 1439;
        Map<String, String> fields = new HashMap<>();
        for (long b = oldest; b <= newest; b++) {
            fields.put(Long.toString(b), "1");
            fields.merge("g" + Math.floorDiv(b, 32), "1", (x, y) -> Long.toString(Long.parseLong(x) + 1));
        }
        fields.put("n", "1440");
        fields.put("o", Long.toString(oldest));
        String key = PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":86400000:60000:v2";
        client.getMap(key, StringCodec.INSTANCE).putAll(fields);
        client.getMap(key, StringCodec.INSTANCE).expire(Duration.ofMinutes(5));
        return oldest;
    }

    private RedisSingle server() {
        return client.getRedisNodes(RedisNodes.SINGLE);
    }

    private Map<String, Long> calls() {
        Map<String, Long> calls = new HashMap<>();
        server().getInstance().info(RedisNode.InfoSection.COMMANDSTATS).forEach((name, stats) -> {
            String callsField = stats.split(",")[0];
            calls.put(name.replace("cmdstat_", ""), Long.parseLong(callsField.substring("calls=".length())));
        });
        return calls;
    }

    private static long delta(Map<String, Long> before, Map<String, Long> after, String command) {
        return after.getOrDefault(command, 0L) - before.getOrDefault(command, 0L);
    }

    private static long ceilMs(long micros) {
        return (micros + 999) / 1000;
    }
}
