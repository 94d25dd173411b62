package io.trunkgate.pace;

import java.time.Duration;

/**
 * The answer of the carrier's slot ledger for one call.
 *
 * @param reserved         whether a slot was taken; false when its wait would exceed the max-wait
 * @param delay            how long until the slot (also when nothing was reserved)
 * @param slotMicros       the slot, Redis server time in microseconds since the epoch
 * @param serverTimeMicros when the decision was made, same clock
 * @param clock            whose clock the times are on: Redis's for the shared ledger, this JVM's wall clock
 *                         for the in-memory fallback
 */
public record Reservation(boolean reserved, Duration delay, long slotMicros, long serverTimeMicros, Clock clock) {

    public enum Clock { REDIS, LOCAL }
}
