package io.trunkgate.limit;

import io.trunkgate.limit.internal.LocalAdmissionLimiter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The admission suite on the in-memory fallback of {@code admission.redis-down = local}, on the wall clock the
 * gateway gives it. The fallback is one instance's memory: the suite's four gateways are four callers of one
 * instance of a fleet of one (each instance's share of a larger fleet: LocalAdmissionLimiterTest).
 */
class LocalAdmissionTest extends AdmissionConformance {

    private final AdmissionLimiter limiter =
            new LocalAdmissionLimiter(1, () -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));

    @Override
    protected AdmissionLimiter limiter(int instance) {
        return limiter;
    }

    private static final String NO_DUPLICATES = "a call offered again (a late retransmission, a failover to "
            + "another gateway) is recognised by its seen key in Redis; the fallback has none and counts it again, "
            + "erring towards refusing";

    @Override
    @Test
    @Disabled(NO_DUPLICATES)
    void retransmissionCountsOnce() {
    }

    @Override
    @Test
    @Disabled(NO_DUPLICATES)
    void aCallOfferedAgainAfterItsShortestWindowStillCountsOnceInTheLongerOnes() {
    }

    @Override
    @Test
    @Disabled(NO_DUPLICATES)
    void aCallCountsOnceInAPrecisionWindowWithoutAnyExactWindow() {
    }

    @Override
    @Test
    @Disabled(NO_DUPLICATES)
    void aDuplicateReportsTheCapacityLeftWithoutCountingItAgain() {
    }

    @Override
    @Test
    @Disabled("no configuration sets a weight (lua/README.md), so every call weighs 1 and none is too heavy; the "
            + "fallback refuses an over-heavy call as LIMITED")
    void aCallHeavierThanAnyMaxIsTooHeavy() {
    }
}
