package io.trunkgate.sip.transport;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How much of a receive loop's time may go to handling datagrams itself, per short window: the rest is kept for
 * reading the socket. Without it, a loop that handled what the idle workers would have woken for left them idle,
 * so it handled more, until at 1,600 calls/s datagrams stood in the socket and new calls were shed
 * (bench/README.md). Used by the loop's thread only.
 */
final class LoopTimeBudget {

    private final long windowNanos;
    private final long budgetNanos;
    private final LongSupplier nanoClock;
    private long windowStart;
    private long spent;

    /** {@code share} of every {@code window} (0 to 1) may be spent. */
    LoopTimeBudget(Duration window, double share, LongSupplier nanoClock) {
        if (share < 0 || share > 1) {
            throw new IllegalArgumentException("share must be between 0 and 1: " + share);
        }
        this.windowNanos = window.toNanos();
        this.budgetNanos = (long) (windowNanos * share);
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /** The time now, if this window's budget is not spent yet; else -1. */
    long startIfWithinBudget() {
        long now = nanoClock.getAsLong();
        if (now - windowStart >= windowNanos) {
            windowStart = now;
            spent = 0;
        }
        return spent < budgetNanos ? now : -1;
    }

    /** Work begun at {@code start} (from {@link #startIfWithinBudget()}) has ended. */
    void spentSince(long start) {
        spent += nanoClock.getAsLong() - start;
    }
}
