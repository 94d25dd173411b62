package io.trunkgate.overload.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The shortest of the waits recorded in an interval, as of the last full one (CoDel's signal, RFC 8289): a burst
 * makes some messages wait and is gone within the interval; a standing queue makes every one of them wait.
 */
public final class StandingWait {

    private static final long NONE = Long.MAX_VALUE;

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong intervalStart;
    private final AtomicLong shortestMs = new AtomicLong(NONE);
    private volatile long lastShortestMs;

    public StandingWait(long intervalNanos, LongSupplier nanoClock) {
        this.intervalNanos = intervalNanos;
        this.nanoClock = nanoClock;
        this.intervalStart = new AtomicLong(nanoClock.getAsLong());
    }

    public void record(long waitMs) {
        roll();
        shortestMs.accumulateAndGet(Math.max(0, waitMs), Math::min);
    }

    public long shortestMs() {
        roll();
        return lastShortestMs;
    }

    private void roll() {
        long now = nanoClock.getAsLong();
        long start = intervalStart.get();
        if (now - start >= intervalNanos && intervalStart.compareAndSet(start, now)) {
            long shortest = shortestMs.getAndSet(NONE);
            // An interval with nothing recorded means an empty queue, unless it ended long ago: then it says
            // nothing.
            lastShortestMs = shortest == NONE || now - start >= 2 * intervalNanos ? 0 : shortest;
        }
    }
}
