package io.trunkgate.pace;

import io.trunkgate.pace.internal.LocalSlotReserver;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * The pacing suite on the in-memory fallback of {@code admission.redis-down = local}, on the wall clock the
 * gateway gives it. The fallback is one instance's memory: the suite's four gateways are four callers of one
 * instance of a fleet of one (each instance's share of a larger fleet is cps / fleet-size, by the same rule).
 */
class LocalPacingTest extends PacingConformance {

    private final SlotReserver reserver =
            new LocalSlotReserver(1, () -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now()));

    @Override
    protected SlotReserver reserver(int instance) {
        return reserver;
    }

    private static final String NEWEST_ONLY = "the fallback takes back only the newest reservation's slot (Redis "
            + "keeps the slots given back out of order in give-back.lua's returned set); an older one stays a gap";

    @Override
    @Test
    @Disabled(NEWEST_ONLY)
    void slotsGivenBackInAnyOrderAreReusedWithExactSpacing() {
    }

    @Override
    @Test
    @Disabled(NEWEST_ONLY)
    void aCancelledHeldCallGivesItsSlotBack() {
    }
}
