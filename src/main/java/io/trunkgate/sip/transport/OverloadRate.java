package io.trunkgate.sip.transport;

import io.trunkgate.throttle.TokenBucket;
import java.time.Duration;
import org.slf4j.event.Level;

/**
 * How many new calls a second the gateway lets in during and after an overload: rate-based overload control (the
 * idea of RFC 7415, applied by the gateway to itself) driven by the {@link QueueDelay} signal. The signal comes
 * late: a call let in now brings its work (the carrier's answers, the ACK, the BYE) over the next few hundred
 * milliseconds, so shedding only while the waits stand over the target lets the whole offer in each time they
 * dip under it, and the gateway swings between shedding nothing and shedding everything, its admitted calls
 * answered late at every swing. Instead, an interval whose waits stood
 * over the target cuts the rate to a fraction of what was let in over the last second (at most once per
 * {@link #DECREASE_SPACING}, so that one cut shows in the waits before the next); while the waits stay over it,
 * each further cut takes that fraction of the limit itself, since every new call is refused meanwhile and what was
 * let in says nothing more (cut from it, a stall of a second would leave a limit of a small part of what the
 * gateway had just carried, slow to grow back). Each interval well under the
 * target raises the rate a little, and {@link #RELEASE_AFTER} with the offer under it and no overload lifts it. Not
 * thread-safe on its own: {@link QueueDelay} calls it under its lock.
 */
final class OverloadRate {

    /** A cut keeps this share of the calls let in over the last second. */
    static final double DECREASE = 0.85;
    /** Cuts are this far apart at least: the calls in progress keep the waits up for a while after one. */
    static final Duration DECREASE_SPACING = Duration.ofMillis(500);
    /** Each interval with waits under half the target raises the rate by this share, and by at least one call. */
    static final double INCREASE = 0.01;
    /**
     * An overload with fewer calls let in over the last second is not the new calls' doing (a cold JVM, a busy host,
     * the traffic of calls in progress): the rate is not cut for it, which would leave it too low to grow back soon.
     */
    static final int MIN_CUT_BASE = 20;
    /** With no overload and no call refused by the rate for this long, the rate is no longer limited. */
    static final Duration RELEASE_AFTER = Duration.ofSeconds(10);

    private final long intervalNanos;
    /** Calls let in per interval: the current one and the {@code length - 1} before it (one second). */
    private final int[] letIn;
    private int current;
    private long currentStart;
    private double limitPerSecond = Double.POSITIVE_INFINITY;
    private long lastCut;
    private long lastOverload;
    private long lastRefusal;
    /** Cut since the waits last stood under the target. */
    private boolean cutInThisOverload;
    private final TokenBucket bucket = new TokenBucket();

    OverloadRate(Duration interval, long nowNanos) {
        this.intervalNanos = interval.toNanos();
        this.letIn = new int[(int) (Duration.ofSeconds(1).toNanos() / intervalNanos) + 1];
        this.currentStart = nowNanos;
        this.lastCut = nowNanos - DECREASE_SPACING.toNanos();
    }

    /** The calls a second let in now; {@link Double#POSITIVE_INFINITY} when not limited. */
    double limitPerSecond() {
        return limitPerSecond;
    }

    /**
     * Starts a new interval if the current one is over, and adjusts the rate by the standing wait
     * ({@link QueueDelay#standingWaitMs()}) at its end.
     */
    void adjust(long nowNanos, long standingWaitMs, long targetMs) {
        long intervals = (nowNanos - currentStart) / intervalNanos;
        if (intervals <= 0) {
            return;
        }
        for (long i = 0; i < Math.min(intervals, letIn.length); i++) {
            current = (current + 1) % letIn.length;
            letIn[current] = 0;
        }
        currentStart += intervals * intervalNanos;
        if (standingWaitMs > targetMs) {
            lastOverload = nowNanos;
            if (nowNanos - lastCut >= DECREASE_SPACING.toNanos()) {
                cut(nowNanos, standingWaitMs, targetMs);
            }
            return;
        }
        cutInThisOverload = false;
        if (limited()) {
            if (nowNanos - Math.max(lastOverload, lastRefusal) >= RELEASE_AFTER.toNanos()) {
                limitPerSecond = Double.POSITIVE_INFINITY;
                OverloadLog.LOG.log(Level.INFO, "overload over: new calls are no longer limited (the offer "
                        + "stayed under the limit with no overload for " + RELEASE_AFTER.toSeconds() + " s)");
            } else if (standingWaitMs * 2 <= targetMs) {
                limitPerSecond += Math.max(1, limitPerSecond * INCREASE);
            }
        }
    }

    private void cut(long nowNanos, long standingWaitMs, long targetMs) {
        int lastSecond = 0;
        for (int i = 0; i < letIn.length; i++) {
            lastSecond += i == current ? 0 : letIn[i];
        }
        if (!cutInThisOverload && lastSecond < MIN_CUT_BASE) {
            return;
        }
        boolean wasLimited = limited();
        limitPerSecond = (cutInThisOverload ? limitPerSecond : Math.min(limitPerSecond, lastSecond)) * DECREASE;
        cutInThisOverload = true;
        lastCut = nowNanos;
        if (!wasLimited) {
            OverloadLog.LOG.log(Level.WARN, "overload: new calls limited to " + Math.round(limitPerSecond)
                    + " a second (" + lastSecond + " let in over the last second; received datagrams waited "
                    + standingWaitMs + " ms, the target is " + targetMs + " ms)");
        }
    }

    private boolean limited() {
        return limitPerSecond != Double.POSITIVE_INFINITY;
    }

    /** Whether a new call is let in at {@code nowNanos}; counts it if it is. */
    boolean letIn(long nowNanos) {
        if (limited() && !bucket.tryTake(nowNanos, limitPerSecond,
                Math.max(1, limitPerSecond * intervalNanos / 1e9))) {
            lastRefusal = nowNanos;
            return false;
        }
        letIn[current]++;
        return true;
    }
}
