package io.trunkgate.pace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReleaseLedgerTest {

    private static final long MS = 1_000_000;

    @Test
    void aLateReleaseDoesNotLetTheNextGoOutBackToBack() {
        ReleaseLedger ledger = new ReleaseLedger();
        // Slots at 0, 10, 20 ms; the timer for the first fired 8 ms late.
        assertEquals(0, ledger.tryRelease(8 * MS, 10 * MS, 1));
        assertEquals(8 * MS, ledger.tryRelease(10 * MS, 10 * MS, 1), "the 10 ms slot waits until 18 ms");
        assertEquals(0, ledger.tryRelease(18 * MS, 10 * MS, 1));
        assertEquals(0, ledger.tryRelease(28 * MS, 10 * MS, 1));
    }

    @Test
    void burstCallsMayGoBackToBackThenSpacingApplies() {
        ReleaseLedger ledger = new ReleaseLedger();
        assertEquals(0, ledger.tryRelease(0, 10 * MS, 3));
        assertEquals(0, ledger.tryRelease(0, 10 * MS, 3));
        assertEquals(0, ledger.tryRelease(0, 10 * MS, 3));
        assertEquals(10 * MS, ledger.tryRelease(0, 10 * MS, 3));
        assertEquals(0, ledger.tryRelease(10 * MS, 10 * MS, 3));
    }

    @Test
    void anIdleCarrierReleasesAtOnce() {
        ReleaseLedger ledger = new ReleaseLedger();
        assertEquals(0, ledger.tryRelease(0, 10 * MS, 1));
        assertEquals(0, ledger.tryRelease(500 * MS, 10 * MS, 1));
    }
}
