package io.trunkgate.pace.internal;

import java.util.concurrent.TimeUnit;

/**
 * Maps Redis server time (the slot clock) to this JVM's nano clock. Every reply carries the server time at
 * which the script ran; the reply then took some unknown time to reach us. The smallest observed
 * (arrival - server time) is the best estimate of the offset, since it includes the least transit time;
 * using it for every release keeps reply latency out of the spacing between calls. The minimum is taken
 * over the current and the previous ten-second epoch, so it follows clock drift.
 */
final class ServerClock {

    private static final long EPOCH_NANOS = TimeUnit.SECONDS.toNanos(10);

    private long epochStart;
    private long previousMin = Long.MAX_VALUE;
    private long currentMin = Long.MAX_VALUE;

    /** @param startNanos the local nano time now, on the clock that {@link #observe} is given */
    ServerClock(long startNanos) {
        this.epochStart = startNanos;
    }

    /** Records one reply: the server time it carried and the local nano time it arrived. */
    synchronized void observe(long serverMicros, long arrivedNanos) {
        if (arrivedNanos - epochStart > EPOCH_NANOS) {
            previousMin = currentMin;
            currentMin = Long.MAX_VALUE;
            epochStart = arrivedNanos;
        }
        currentMin = Math.min(currentMin, arrivedNanos - serverMicros * 1000);
    }

    /** The local nano time at which the server clock reads {@code serverMicros}. */
    synchronized long toLocalNanos(long serverMicros) {
        return serverMicros * 1000 + Math.min(previousMin, currentMin);
    }
}
