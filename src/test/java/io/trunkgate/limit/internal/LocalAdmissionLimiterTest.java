package io.trunkgate.limit.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimitInvariants;
import io.trunkgate.limit.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The in-memory fallback, driven by an injected clock. */
class LocalAdmissionLimiterTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private int calls;

    private AdmissionDecision admit(AdmissionLimiter limiter, Scope peer) {
        return limiter.admit(AdmissionRequest.of("call-" + calls++, peer)).toCompletableFuture().join();
    }

    @Test
    void eachInstanceEnforcesItsShareOfEveryLimit() {
        AdmissionLimiter limiter = new LocalAdmissionLimiter(3, now::get);
        Scope peer = Scope.peer("p", List.of(Limit.exact(Duration.ofSeconds(1), 10)));
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            admitted += admit(limiter, peer).admitted() ? 1 : 0;
        }
        assertEquals(3, admitted, "10 / 3 instances, rounded down");
    }

    @Test
    void retryAfterIsExactAndCapacityReturnsWhenTheOldestLeaves() {
        AdmissionLimiter limiter = new LocalAdmissionLimiter(1, now::get);
        Scope peer = Scope.peer("p", List.of(Limit.exact(Duration.ofMillis(800), 2)));
        admit(limiter, peer);
        now.addAndGet(100_000);
        admit(limiter, peer);
        now.addAndGet(100_000);
        AdmissionDecision refused = admit(limiter, peer);
        assertEquals(AdmissionDecision.Outcome.LIMITED, refused.outcome());
        assertEquals(601, refused.retryAfter().toMillis(), "800 ms after the first call, plus 1 us, rounded up");
        now.addAndGet(600_000);
        assertEquals(AdmissionDecision.Outcome.LIMITED, admit(limiter, peer).outcome(), "1 us too early");
        now.addAndGet(1);
        assertEquals(AdmissionDecision.Outcome.ADMITTED, admit(limiter, peer).outcome());
    }

    @Test
    void randomTrafficNeverOverfillsAnyWindow() {
        Limit exact = Limit.exact(Duration.ofMillis(500), 7);
        Limit bucketed = Limit.bucketed(Duration.ofSeconds(2), 20, Duration.ofMillis(250));
        Scope peer = Scope.peer("p", List.of(exact));
        Scope group = Scope.group("g", List.of(bucketed));
        AdmissionLimiter limiter = new LocalAdmissionLimiter(1, now::get);
        Random random = new Random(42);
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            now.addAndGet(random.nextInt(20_000));
            AdmissionDecision d = limiter.admit(new AdmissionRequest("c" + i, 1, peer, Optional.of(group)))
                    .toCompletableFuture().join();
            if (d.admitted()) {
                times.add(d.serverTimeMicros());
            }
        }
        LimitInvariants.assertNoWindowOverMax(times, exact);
        LimitInvariants.assertNoWindowOverMax(times, bucketed);
        assertTrue(times.size() > 400, "admitted " + times.size());
    }
}
