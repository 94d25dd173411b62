package io.trunkgate.overload.internal;

import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.throttle.TokenBucket;
import java.time.Duration;
import java.util.function.DoubleSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How many new calls a second are let in during and after an overload: rate-based overload control (the idea of
 * RFC 7415, applied by the gateway to itself) driven by the standing wait. The wait shows an overload late: a call
 * let in now brings its work (the carrier's answers, the ACK, the BYE) over the next few hundred milliseconds, so
 * shedding only while the wait stands over the target would let the whole offer in each time it dips under it.
 * Instead, an interval whose wait stood over the target cuts the rate to {@link OverloadSettings#decrease()} of
 * what was let in over the last second (at most once per {@link OverloadSettings#decreaseSpacing()}); while the
 * wait stays over it, each further cut takes that share of the limit itself, since every new call is refused
 * meanwhile and what was let in says nothing more. Each interval well under the target raises the rate a little,
 * or at once to what the loops would carry when their busy share says that is more (a cut made by a pause, far
 * under what the machine carries, would otherwise take seconds to grow back), and
 * {@link OverloadSettings#releaseAfter()} with the offer under it and no overload lifts it. Not thread-safe: its
 * owner calls it under a lock.
 */
public final class AdmittedRate {

    private static final Logger log = LoggerFactory.getLogger("io.trunkgate.overload");

    private final OverloadSettings settings;
    private final long intervalNanos;
    /** Calls let in per interval: the current one and the {@code length - 1} before it (one second). */
    private final int[] letIn;
    private int current;
    private long currentStart;
    private double limitPerSecond = Double.POSITIVE_INFINITY;
    private long lastCut;
    private long lastOverload;
    private long lastRefusal;
    /** Cut since the wait last stood under the target. */
    private boolean cutInThisOverload;
    private final TokenBucket bucket = new TokenBucket();

    public AdmittedRate(OverloadSettings settings, long nowNanos) {
        this.settings = settings;
        this.intervalNanos = settings.interval().toNanos();
        this.letIn = new int[(int) (Duration.ofSeconds(1).toNanos() / intervalNanos) + 1];
        this.currentStart = nowNanos;
        this.lastCut = nowNanos - settings.decreaseSpacing().toNanos();
    }

    /** The calls a second let in now; {@link Double#POSITIVE_INFINITY} when not limited. */
    public double limitPerSecond() {
        return limitPerSecond;
    }

    private boolean limited() {
        return limitPerSecond != Double.POSITIVE_INFINITY;
    }

    /**
     * Starts a new interval if the current one is over, and adjusts the rate by the standing wait at its end and by
     * {@code busyShare}: how much of their time the busiest SIP loop was busy over the last second (NaN: unknown).
     */
    public void adjust(long nowNanos, long standingWaitMs, long targetMs, DoubleSupplier busyShare) {
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
            if (nowNanos - lastCut >= settings.decreaseSpacing().toNanos()) {
                cut(nowNanos, standingWaitMs, targetMs);
            }
            return;
        }
        cutInThisOverload = false;
        if (limited()) {
            if (nowNanos - Math.max(lastOverload, lastRefusal) >= settings.releaseAfter().toNanos()) {
                limitPerSecond = Double.POSITIVE_INFINITY;
                log.info("overload over: new calls are no longer limited (the offer stayed under the limit with no "
                        + "overload for {} s)", settings.releaseAfter().toSeconds());
            } else if (standingWaitMs * 2 <= targetMs) {
                limitPerSecond = Math.max(limitPerSecond + Math.max(1, limitPerSecond * settings.increase()),
                        carried(busyShare.getAsDouble()));
            }
        }
    }

    /**
     * What the loops would carry at the cut's share of their time, judged from the calls let in over the last second
     * and how busy that kept the busiest loop; 0 when that says nothing (too few calls, no share known).
     */
    private double carried(double busyShare) {
        int lastSecond = lastSecond();
        return lastSecond < settings.minCutBase() || !(busyShare > 0) ? 0
                : settings.decrease() * lastSecond / busyShare;
    }

    private int lastSecond() {
        int lastSecond = 0;
        for (int i = 0; i < letIn.length; i++) {
            lastSecond += i == current ? 0 : letIn[i];
        }
        return lastSecond;
    }

    private void cut(long nowNanos, long standingWaitMs, long targetMs) {
        int lastSecond = lastSecond();
        if (!cutInThisOverload && lastSecond < settings.minCutBase()) {
            return;
        }
        boolean wasLimited = limited();
        limitPerSecond = (cutInThisOverload ? limitPerSecond : Math.min(limitPerSecond, lastSecond))
                * settings.decrease();
        cutInThisOverload = true;
        lastCut = nowNanos;
        if (!wasLimited) {
            log.warn("overload: new calls limited to {} a second ({} let in over the last second; received messages "
                    + "waited {} ms, the target is {} ms)", Math.round(limitPerSecond), lastSecond, standingWaitMs,
                    targetMs);
        }
    }

    /** Whether a new call is let in at {@code nowNanos}; counts it if it is. */
    public boolean letIn(long nowNanos) {
        if (limited() && !bucket.tryTake(nowNanos, limitPerSecond,
                Math.max(1, limitPerSecond * intervalNanos / 1e9))) {
            lastRefusal = nowNanos;
            return false;
        }
        letIn[current]++;
        return true;
    }
}
