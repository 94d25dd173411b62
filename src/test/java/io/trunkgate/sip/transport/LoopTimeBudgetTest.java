package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoopTimeBudgetTest {

    private final AtomicLong now = new AtomicLong(1_000_000);
    private final LoopTimeBudget budget = new LoopTimeBudget(Duration.ofMillis(10), 0.25, now::get);

    @Test
    void aQuarterOfEachWindowMayBeSpentAndANewWindowStartsAfresh() {
        long start = budget.startIfWithinBudget();
        assertEquals(now.get(), start);
        now.addAndGet(Duration.ofMillis(2).toNanos());
        budget.spentSince(start);
        start = budget.startIfWithinBudget();
        assertEquals(now.get(), start, "2 of 2.5 ms spent");
        now.addAndGet(Duration.ofMillis(1).toNanos());
        budget.spentSince(start);
        now.addAndGet(Duration.ofMillis(6).toNanos());
        assertEquals(-1, budget.startIfWithinBudget(), "3 ms spent in a window of 10");
        now.addAndGet(Duration.ofMillis(1).toNanos());
        assertEquals(now.get(), budget.startIfWithinBudget(), "the next window");
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LoopTimeBudget(Duration.ofMillis(10), 1.5, now::get));
    }
}
