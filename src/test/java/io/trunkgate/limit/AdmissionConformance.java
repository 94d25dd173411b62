package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admission behaviour, specified once and run against every backend (the bucket4j way): each Redis topology
 * (standalone, cluster, embedded: {@link RedisAdmissionConformance}, which adds what only Redis keeps) and the
 * in-memory fallback ({@link LocalAdmissionTest}). Each test uses fresh peer ids, so tests never see each other's
 * windows. Time is the backend's own (Redis's TIME, or this JVM's wall clock), so it passes for real here; the
 * fallback's exact boundaries on a clock the test moves are in {@code LocalAdmissionLimiterTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AdmissionConformance {

    /** The limiter of gateway {@code instance} (0 to 3) of one fleet. */
    protected abstract AdmissionLimiter limiter(int instance);

    static AdmissionDecision admit(AdmissionLimiter limiter, AdmissionRequest request) {
        return limiter.admit(request).toCompletableFuture().join();
    }

    static String newPeer() {
        return "peer-" + UUID.randomUUID();
    }

    static String call() {
        return UUID.randomUUID() + "@test";
    }

    @Test
    void concurrentInstancesNeverExceedAnyWindow() throws Exception {
        Limit fast = Limit.exact(Duration.ofMillis(500), 10);
        Limit slow = Limit.exact(Duration.ofSeconds(2), 30);
        Limit bucketed = Limit.bucketed(Duration.ofSeconds(1), 18, Duration.ofMillis(100));
        Scope peer = Scope.peer(newPeer(), List.of(fast, slow, bucketed));
        List<Long> admitted = Collections.synchronizedList(new ArrayList<>());
        AtomicInteger offered = new AtomicInteger();
        long runNanos = TimeUnit.MILLISECONDS.toNanos(4000);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch done = new CountDownLatch(16);
        long start = System.nanoTime();
        for (int t = 0; t < 16; t++) {
            AdmissionLimiter limiter = limiter(t % 4);
            pool.execute(() -> {
                try {
                    while (System.nanoTime() - start < runNanos) {
                        offered.incrementAndGet();
                        AdmissionDecision d = admit(limiter, AdmissionRequest.of(call(), peer));
                        if (d.admitted()) {
                            admitted.add(d.serverTimeMicros());
                        }
                        Thread.sleep(ThreadLocalRandom.current().nextInt(5, 30));
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            });
        }
        assertTrue(done.await(30, TimeUnit.SECONDS));
        pool.shutdown();

        List<Long> times = new ArrayList<>(admitted);
        Collections.sort(times);
        // The tightest sustained limit is the 2 s window: 15 calls/s; the offer must be at least 3x that.
        double offeredPerSecond = offered.get() / 4.0;
        assertTrue(offeredPerSecond >= 45, "offered only " + offeredPerSecond + "/s");
        for (Limit limit : List.of(fast, slow, bucketed)) {
            LimitInvariants.assertNoWindowOverMax(times, limit);
        }
        // Strict, yet not starved: the 2 s limit allows 30 per 2 s; 4 s of offer must fill at least two windows.
        assertTrue(times.size() >= 2 * slow.max(), "admitted only " + times.size());
    }

    @Test
    void capacityReturnsExactlyWhenTheOldestCallLeaves() throws Exception {
        AdmissionLimiter limiter = limiter(0);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofMillis(800), 3)));
        AdmissionDecision first = admit(limiter, AdmissionRequest.of(call(), peer));
        // the second call is 300 ms younger: it still holds its place even when the wait below overruns by 250 ms
        Thread.sleep(300);
        admit(limiter, AdmissionRequest.of(call(), peer));
        admit(limiter, AdmissionRequest.of(call(), peer));
        AdmissionDecision refused = admit(limiter, AdmissionRequest.of(call(), peer));

        assertEquals(Outcome.LIMITED, refused.outcome());
        long expectedMicros = first.serverTimeMicros() + 800_000 + 1 - refused.serverTimeMicros();
        long expectedMs = (expectedMicros + 999) / 1000;
        assertEquals(expectedMs, refused.retryAfter().toMillis(), "retry-after follows the oldest call");
        assertEquals(peer, refused.refusedBy().orElseThrow());
        assertEquals(peer.limits().get(0), refused.refusedLimit().orElseThrow());

        Thread.sleep(refused.retryAfter().toMillis());
        AdmissionDecision afterOldestLeft = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(Outcome.ADMITTED, afterOldestLeft.outcome());
        assertTrue(afterOldestLeft.serverTimeMicros() > first.serverTimeMicros() + 800_000);
        // Only the oldest call left: the second one still holds its place.
        assertEquals(Outcome.LIMITED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
    }

    /**
     * Retry-After is neither too short nor (by more than the ms it is rounded up to) too long: its exact value is
     * checked against the server times above, and on a clock the test moves, 1 us early, in
     * LocalAdmissionLimiterTest. Here the early offer comes half the wait early, which a busy machine's late
     * wake-up does not turn into one at retry-after.
     */
    @Test
    void retryAtRetryAfterIsAdmittedAndEarlierIsNot() throws Exception {
        AdmissionLimiter limiter = limiter(1);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(1), 2)));
        admit(limiter, AdmissionRequest.of(call(), peer));
        admit(limiter, AdmissionRequest.of(call(), peer));
        AdmissionDecision refused = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(Outcome.LIMITED, refused.outcome());
        long refusedAt = System.nanoTime();

        sleepUntil(refusedAt, refused.retryAfter().toMillis() / 2);
        AdmissionDecision early = admit(limiter, AdmissionRequest.of(call(), peer));
        assertEquals(Outcome.LIMITED, early.outcome(), "half the retry-after early");

        sleepUntil(refusedAt, refused.retryAfter().toMillis());
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome(), "at retry-after");
    }

    @Test
    void refusedCallsUseNoCapacity() throws Exception {
        AdmissionLimiter limiter = limiter(2);
        // A window long enough that the refusals below fall inside it even on a loaded machine.
        Duration window = Duration.ofSeconds(3);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(window, 5)));
        for (int i = 0; i < 5; i++) {
            assertTrue(admit(limiter, AdmissionRequest.of(call(), peer)).admitted());
        }
        long lastAdmitted = System.nanoTime();
        for (int i = 0; i < 40; i++) {
            assertEquals(Outcome.LIMITED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
            Thread.sleep(5);
        }
        // Wait out the window of the last admitted call (Redis's clock runs with ours); refused calls, had they
        // counted, would keep the window full long after that.
        long windowEnds = lastAdmitted + window.toNanos() + TimeUnit.MILLISECONDS.toNanos(150);
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(windowEnds - System.nanoTime())));
        int admittedAgain = 0;
        for (int i = 0; i < 10; i++) {
            if (admit(limiter, AdmissionRequest.of(call(), peer)).admitted()) {
                admittedAgain++;
            }
        }
        assertEquals(5, admittedAgain, "the full limit is back once the admitted calls left the window");
    }

    @Test
    void weightUsesThatManyUnits() {
        AdmissionLimiter limiter = limiter(3);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 10)));
        AdmissionDecision a = admit(limiter, new AdmissionRequest(call(), 4, peer, Optional.empty()));
        AdmissionDecision b = admit(limiter, new AdmissionRequest(call(), 4, peer, Optional.empty()));
        AdmissionDecision c = admit(limiter, new AdmissionRequest(call(), 4, peer, Optional.empty()));
        AdmissionDecision d = admit(limiter, new AdmissionRequest(call(), 2, peer, Optional.empty()));
        assertEquals(List.of(Outcome.ADMITTED, Outcome.ADMITTED, Outcome.LIMITED, Outcome.ADMITTED),
                List.of(a.outcome(), b.outcome(), c.outcome(), d.outcome()));
        assertEquals(6, a.remaining());
        assertEquals(2, b.remaining());
        assertEquals(0, d.remaining());
    }

    @Test
    void aCallHeavierThanAnyMaxIsTooHeavy() {
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 10)));
        AdmissionDecision heavy = admit(limiter(3), new AdmissionRequest(call(), 11, peer, Optional.empty()));
        assertEquals(Outcome.TOO_HEAVY, heavy.outcome());
    }

    @Test
    void groupLimitBindsAcrossPeers() {
        String group = "group-" + UUID.randomUUID();
        Scope groupScope = Scope.group(group, List.of(Limit.exact(Duration.ofSeconds(5), 5)));
        Scope peerA = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 4)));
        Scope peerB = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 4)));
        AdmissionLimiter gatewayOne = limiter(0);
        AdmissionLimiter gatewayTwo = limiter(1);
        for (int i = 0; i < 4; i++) {
            assertTrue(admit(gatewayOne, new AdmissionRequest(call(), 1, peerA, Optional.of(groupScope))).admitted());
        }
        AdmissionDecision peerLimited = admit(gatewayOne, new AdmissionRequest(call(), 1, peerA, Optional.of(groupScope)));
        assertEquals(peerA, peerLimited.refusedBy().orElseThrow());

        assertTrue(admit(gatewayTwo, new AdmissionRequest(call(), 1, peerB, Optional.of(groupScope))).admitted());
        AdmissionDecision groupLimited = admit(gatewayTwo, new AdmissionRequest(call(), 1, peerB, Optional.of(groupScope)));
        assertEquals(Outcome.LIMITED, groupLimited.outcome());
        assertEquals(groupScope, groupLimited.refusedBy().orElseThrow(), "peer B has room; the group has not");
    }

    @Test
    void bucketedWindowNeverOverAdmitsAndItsRetryAfterHolds() throws Exception {
        Limit limit = Limit.bucketed(Duration.ofMillis(700), 7, Duration.ofMillis(100));
        Scope peer = Scope.peer(newPeer(), List.of(limit));
        AdmissionLimiter limiter = limiter(0);
        List<Long> times = new ArrayList<>();
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2500)) {
            AdmissionDecision d = admit(limiter, AdmissionRequest.of(call(), peer));
            if (d.admitted()) {
                times.add(d.serverTimeMicros());
            }
            Thread.sleep(3);
        }
        LimitInvariants.assertNoWindowOverMax(times, limit);
        assertTrue(times.size() >= 14, "admitted only " + times.size());

        AdmissionDecision refused;
        do {
            refused = admit(limiter, AdmissionRequest.of(call(), peer));
        } while (refused.admitted());
        Thread.sleep(refused.retryAfter().toMillis());
        assertTrue(admit(limiter, AdmissionRequest.of(call(), peer)).admitted(), "admitted at retry-after");
    }

    @Test
    void retransmissionCountsOnce() {
        AdmissionLimiter limiter = limiter(1);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 2)));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(callId, peer)).outcome());
        assertEquals(Outcome.DUPLICATE, admit(limiter(2), AdmissionRequest.of(callId, peer)).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        assertEquals(Outcome.LIMITED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
    }

    @Test
    void aCallOfferedAgainAfterItsShortestWindowStillCountsOnceInTheLongerOnes() throws Exception {
        AdmissionLimiter limiter = limiter(0);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofMillis(200), 10),
                Limit.bucketed(Duration.ofSeconds(30), 3, Duration.ofSeconds(1))));
        String callId = call();
        AdmissionDecision first = admit(limiter, AdmissionRequest.of(callId, peer));
        assertEquals(Outcome.ADMITTED, first.outcome());
        AdmissionDecision again;
        do {
            Thread.sleep(50);
            // a late retransmission, or a failover to another gateway, once the 200 ms window has let it go
            again = admit(limiter(1), AdmissionRequest.of(callId, peer));
        } while (again.serverTimeMicros() <= first.serverTimeMicros() + 200_000 && again.outcome() == Outcome.DUPLICATE);
        assertEquals(Outcome.DUPLICATE, again.outcome(), "the 30 s window still holds the call");
        assertEquals(List.of(Outcome.ADMITTED, Outcome.ADMITTED, Outcome.LIMITED),
                List.of(admit(limiter, AdmissionRequest.of(call(), peer)).outcome(),
                        admit(limiter, AdmissionRequest.of(call(), peer)).outcome(),
                        admit(limiter, AdmissionRequest.of(call(), peer)).outcome()),
                "the first call took one unit of the 30 s window, not two");
    }

    @Test
    void aCallCountsOnceInAPrecisionWindowWithoutAnyExactWindow() {
        AdmissionLimiter limiter = limiter(2);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.bucketed(Duration.ofSeconds(30), 2, Duration.ofSeconds(1))));
        String callId = call();
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(callId, peer)).outcome());
        assertEquals(Outcome.DUPLICATE, admit(limiter(3), AdmissionRequest.of(callId, peer)).outcome());
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        assertEquals(Outcome.LIMITED, admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
    }

    @Test
    void twoLimitsOfTheSameWindowAndPrecisionCountEachCallOnce() {
        AdmissionLimiter limiter = limiter(1);
        // {1d, 100000, 1m} beside {24h, 50000, 60s}, scaled down: the same window and precision, two maxima
        Scope peer = Scope.peer(newPeer(), List.of(Limit.bucketed(Duration.ofSeconds(30), 10, Duration.ofSeconds(1)),
                Limit.bucketed(Duration.ofMillis(30_000), 4, Duration.ofMillis(1000))));
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            outcomes.add(admit(limiter, AdmissionRequest.of(call(), peer)).outcome());
        }
        assertEquals(List.of(Outcome.ADMITTED, Outcome.ADMITTED, Outcome.ADMITTED, Outcome.ADMITTED, Outcome.LIMITED),
                outcomes, "the smaller max binds, at its full value");
    }

    @Test
    void aDuplicateReportsTheCapacityLeftWithoutCountingItAgain() {
        AdmissionLimiter limiter = limiter(2);
        Scope peer = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(5), 3),
                Limit.bucketed(Duration.ofSeconds(30), 4, Duration.ofSeconds(1))));
        String callId = call();
        assertEquals(2, admit(limiter, AdmissionRequest.of(callId, peer)).remaining());
        AdmissionDecision again = admit(limiter, AdmissionRequest.of(callId, peer));
        assertEquals(Outcome.DUPLICATE, again.outcome());
        assertEquals(2, again.remaining(), "nothing was recorded, so as much is left as after the first offer");
        admit(limiter, AdmissionRequest.of(call(), peer));
        admit(limiter, AdmissionRequest.of(call(), peer));
        AdmissionDecision full = admit(limiter, AdmissionRequest.of(callId, peer));
        assertEquals(Outcome.DUPLICATE, full.outcome());
        assertEquals(0, full.remaining());
    }

    /** The labels of the shadow limits that would have refused each call, one string per call. */
    private static List<String> offer(AdmissionLimiter limiter, Scope peer, Optional<Scope> group, int calls,
                                      List<Outcome> outcomes) {
        List<String> over = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            AdmissionDecision d = admit(limiter, new AdmissionRequest(call(), 1, peer, group));
            outcomes.add(d.outcome());
            over.add(d.wouldRefuse().stream().map(WouldRefuse::label).reduce((x, y) -> x + ", " + y).orElse(""));
        }
        return over;
    }

    @Test
    void aShadowLimitAdmitsEveryCallAndCountsWhatItWouldIfEnforced() {
        AdmissionLimiter limiter = limiter(0);
        Limit shadow = Limit.exact(Duration.ofSeconds(20), 3).in(LimitMode.SHADOW);
        String id = newPeer();
        Scope peer = Scope.peer(id, List.of(shadow));
        List<Outcome> outcomes = new ArrayList<>();
        List<String> over = offer(limiter, peer, Optional.empty(), 5, outcomes);
        assertEquals(Collections.nCopies(5, Outcome.ADMITTED), outcomes, "a shadow limit refuses nothing");
        String label = "peer:" + id + " 3/20000ms";
        assertEquals(List.of("", "", "", label, label), over, "the calls over its max are reported");

        // Its window holds the 3 calls it would have admitted, not all 5: enforced now, it is full, and the
        // Retry-After follows the first call (an enforced window of 5 would wait for the third).
        Scope enforced = Scope.peer(id, List.of(shadow.in(LimitMode.ENFORCE)));
        AdmissionDecision refused = admit(limiter, AdmissionRequest.of(call(), enforced));
        assertEquals(Outcome.LIMITED, refused.outcome());
        assertEquals(List.of(), refused.wouldRefuse());
        Scope raised = Scope.peer(id, List.of(Limit.exact(Duration.ofSeconds(20), 4)));
        assertEquals(Outcome.ADMITTED, admit(limiter, AdmissionRequest.of(call(), raised)).outcome(),
                "the window held 3 calls: a max of 4 admits one more");
    }

    @Test
    void aShadowLimitBesideAnEnforcedOneOfTheSameWindowCountsOnlyTheCallsItWouldAdmit() {
        AdmissionLimiter limiter = limiter(1);
        String id = newPeer();
        Limit enforced = Limit.bucketed(Duration.ofSeconds(20), 4, Duration.ofSeconds(1));
        Limit shadow = Limit.bucketed(Duration.ofSeconds(20), 2, Duration.ofSeconds(1)).in(LimitMode.SHADOW);
        Scope peer = Scope.peer(id, List.of(enforced, shadow));
        List<Outcome> outcomes = new ArrayList<>();
        List<String> over = offer(limiter, peer, Optional.empty(), 6, outcomes);
        assertEquals(List.of(Outcome.ADMITTED, Outcome.ADMITTED, Outcome.ADMITTED, Outcome.ADMITTED, Outcome.LIMITED,
                Outcome.LIMITED), outcomes, "the enforced limit alone decides");
        String label = "peer:" + id + " 2/20000ms@1000ms";
        assertEquals(List.of("", "", label, label, label, label), over,
                "a call an enforced limit refuses is still reported by the shadow limit over its max");

    }

    @Test
    void aGroupsShadowLimitReportsTheGroupAndAnEnforcedRefusalLeavesItsWindowAlone() {
        AdmissionLimiter limiter = limiter(2);
        String groupId = newPeer();
        Scope group = Scope.group(groupId, List.of(Limit.exact(Duration.ofSeconds(20), 2).in(LimitMode.SHADOW)));
        Scope a = Scope.peer(newPeer(), List.of(Limit.exact(Duration.ofSeconds(20), 1)));
        Scope b = Scope.peer(newPeer(), List.of());
        List<Outcome> outcomes = new ArrayList<>();
        List<String> over = new ArrayList<>();
        over.addAll(offer(limiter, a, Optional.of(group), 3, outcomes));
        over.addAll(offer(limiter, b, Optional.of(group), 2, outcomes));
        assertEquals(List.of(Outcome.ADMITTED, Outcome.LIMITED, Outcome.LIMITED, Outcome.ADMITTED, Outcome.ADMITTED),
                outcomes);
        String label = "group:" + groupId + " 2/20000ms";
        assertEquals(List.of("", "", "", "", label), over,
                "the calls peer a's own limit refused were not counted in the group's shadow window");
    }

    private static void sleepUntil(long startNanos, long offsetMillis) throws InterruptedException {
        long wait = startNanos + TimeUnit.MILLISECONDS.toNanos(offsetMillis) - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
