package io.trunkgate.overload;

import java.time.Duration;

/**
 * How much of its time one SIP loop was busy over about the last second: running, or ready to run and waiting for
 * a core; the rest it slept, waiting for work. The loop samples its own totals ({@link #sample}, every
 * {@link OverloadSettings#interval()} or so); {@link OverloadController} reads the busiest loop's share to tell
 * how many calls the loops could carry while new calls are limited (docs/overload.md).
 */
public final class LoopMeter {

    private final Duration period;
    /** The samples kept (busy totals, and when): one second's worth, plus the one it is measured from. */
    private final long[] busy;
    private final long[] at;
    private int newest = -1;
    private int count;

    LoopMeter(OverloadSettings settings) {
        this.period = settings.interval();
        int length = (int) (Duration.ofSeconds(1).toNanos() / period.toNanos()) + 1;
        this.busy = new long[length];
        this.at = new long[length];
    }

    /** How often the loop should sample. */
    public Duration period() {
        return period;
    }

    /**
     * The loop's totals at {@code nowNanos}: {@code busyNanos} of its life spent busy. Totals from any origin will
     * do; they must only grow.
     */
    public synchronized void sample(long busyNanos, long nowNanos) {
        newest = (newest + 1) % busy.length;
        busy[newest] = busyNanos;
        at[newest] = nowNanos;
        count = Math.min(count + 1, busy.length);
    }

    /** The share of the time between the oldest and the newest sample kept that the loop was busy; NaN before two. */
    public synchronized double busyShare() {
        if (count < 2) {
            return Double.NaN;
        }
        int oldest = Math.floorMod(newest - count + 1, busy.length);
        long wall = at[newest] - at[oldest];
        return wall <= 0 ? Double.NaN : Math.min(1, Math.max(0, (double) (busy[newest] - busy[oldest]) / wall));
    }
}
