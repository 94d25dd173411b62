package io.trunkgate.throttle;

/**
 * A local token bucket: {@code perSecond} tokens a second, at most {@code burst} saved up. The rate is given
 * on every take, so a reloaded configuration applies at once.
 */
public final class TokenBucket {

    private double tokens = Double.NaN;
    private long lastNanos;

    /** Takes one token at {@code nowNanos} if there is one. */
    public synchronized boolean tryTake(long nowNanos, double perSecond, double burst) {
        if (Double.isNaN(tokens)) {
            tokens = burst;
        } else {
            tokens = Math.min(burst, tokens + (nowNanos - lastNanos) * perSecond / 1e9);
        }
        lastNanos = nowNanos;
        if (tokens < 1) {
            return false;
        }
        tokens -= 1;
        return true;
    }
}
