package io.trunkgate.pace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ReleaseLedgerTest {

    private static final long MS = 1_000_000;
    private static final long INTERVAL = 20 * MS;
    // The closest two releases may be: the interval less the catch-up share.
    private static final long SPACING = 19_500_000;

    @Test
    void aLateReleaseDoesNotLetTheNextGoOutBackToBack() {
        ReleaseLedger ledger = new ReleaseLedger();
        // Slots at 0, 20, 40 ms; the timer for the first fired 16 ms late.
        assertEquals(0, ledger.tryRelease(16 * MS, INTERVAL, 1));
        assertEquals(15_500_000, ledger.tryRelease(20 * MS, INTERVAL, 1), "the 20 ms slot waits until 35.5 ms");
        assertEquals(0, ledger.tryRelease(35_500_000, INTERVAL, 1));
    }

    @Test
    void lateReleasesAreCaughtUpWithoutGapsBelowTheSpacing() {
        ReleaseLedger ledger = new ReleaseLedger();
        // A queue of calls on slots 20 ms apart; the first left 5 ms late, the timer is punctual afterwards.
        long released = 5 * MS;
        assertEquals(0, ledger.tryRelease(released, INTERVAL, 1));
        int callsToCatchUp = 0;
        for (long slot = INTERVAL; released - (slot - INTERVAL) > 0; slot += INTERVAL) {
            long wait = ledger.tryRelease(slot, INTERVAL, 1);
            long next = slot + wait;
            if (wait > 0) {
                assertEquals(0, ledger.tryRelease(next, INTERVAL, 1));
            }
            assertTrue(next - released >= SPACING, "gap " + (next - released));
            released = next;
            callsToCatchUp++;
            if (wait == 0) {
                break;
            }
        }
        assertEquals(10, callsToCatchUp, "5 ms of lateness, caught up 0.5 ms a call");
    }

    @Test
    void burstCallsMayGoBackToBackThenSpacingApplies() {
        ReleaseLedger ledger = new ReleaseLedger();
        assertEquals(0, ledger.tryRelease(0, INTERVAL, 3));
        assertEquals(0, ledger.tryRelease(0, INTERVAL, 3));
        assertEquals(0, ledger.tryRelease(0, INTERVAL, 3));
        assertEquals(SPACING, ledger.tryRelease(0, INTERVAL, 3));
        assertEquals(0, ledger.tryRelease(SPACING, INTERVAL, 3));
    }

    @Test
    void theCatchUpShareIsAtMostHalfAMillisecond() {
        ReleaseLedger ledger = new ReleaseLedger();
        assertEquals(0, ledger.tryRelease(0, 100 * MS, 1));
        assertEquals(99_500_000, ledger.tryRelease(0, 100 * MS, 1), "at 10 cps calls leave at least 99.5 ms apart");
    }

    @Test
    void ordinaryTimerLatenessDoesNotHoldBackTheNextCall() {
        ReleaseLedger ledger = new ReleaseLedger();
        // 1,000 cps: slots 1 ms apart; the first left 200 us late (under the 250 us share), the next is on time.
        assertEquals(0, ledger.tryRelease(200_000, MS, 1));
        assertEquals(0, ledger.tryRelease(MS, MS, 1));
        assertEquals(0, ledger.tryRelease(2 * MS, MS, 1));
    }

    @Test
    void anIdleCarrierReleasesAtOnce() {
        ReleaseLedger ledger = new ReleaseLedger();
        assertEquals(0, ledger.tryRelease(0, INTERVAL, 1));
        assertEquals(0, ledger.tryRelease(500 * MS, INTERVAL, 1));
    }
}
