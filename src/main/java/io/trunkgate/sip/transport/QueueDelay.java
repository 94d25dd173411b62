package io.trunkgate.sip.transport;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * How long received datagrams wait for a worker, as an overload signal (the idea of CoDel, RFC 8289): the gateway
 * is overloaded while even the shortest wait of an interval exceeds the target. A burst makes some datagrams
 * wait and is gone within the interval; a standing queue makes every one of them wait. Unlike a fixed cap on new
 * calls per second it needs no tuning per machine, and it also sees a cold JVM or a busy host that is slower than
 * any cap.
 */
public final class QueueDelay {

    /** CoDel's interval: longer than a burst or a GC pause takes to drain, short enough to react at once. */
    public static final Duration INTERVAL = Duration.ofMillis(100);

    private static final long NONE = Long.MAX_VALUE;

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final AtomicLong intervalStart;
    private final AtomicLong shortestWaitMs = new AtomicLong(NONE);
    private volatile long lastShortestWaitMs;

    /** {@code interval}: how long a wait must stand before it counts. */
    public QueueDelay(Duration interval, LongSupplier nanoClock) {
        this.intervalNanos = interval.toNanos();
        this.nanoClock = nanoClock;
        this.intervalStart = new AtomicLong(nanoClock.getAsLong());
    }

    /** A worker took a datagram that had waited {@code waitMs}. */
    void record(long waitMs) {
        roll();
        shortestWaitMs.accumulateAndGet(Math.max(0, waitMs), Math::min);
    }

    /**
     * Whether new work should be refused: the shortest wait of the last full interval was over {@code target}
     * (zero: never).
     */
    public boolean overloaded(Duration target) {
        roll();
        return !target.isZero() && lastShortestWaitMs > target.toMillis();
    }

    /** The shortest wait of the last full interval, in milliseconds (0 when nothing arrived). */
    public long standingWaitMs() {
        roll();
        return lastShortestWaitMs;
    }

    private void roll() {
        long now = nanoClock.getAsLong();
        long start = intervalStart.get();
        if (now - start >= intervalNanos && intervalStart.compareAndSet(start, now)) {
            long shortest = shortestWaitMs.getAndSet(NONE);
            // An interval with nothing taken means an empty queue, unless it ended long ago: then it says nothing.
            lastShortestWaitMs = shortest == NONE || now - start >= 2 * intervalNanos ? 0 : shortest;
        }
    }
}
