package io.trunkgate.pace.internal;

/**
 * This gateway's own record of when it released calls to one carrier. Slots in Redis are spaced exactly,
 * but a timer that fires late (a busy core, a GC pause) would otherwise let the calls behind it go out
 * back to back; the ledger holds each release to the same rule as the slots (GCRA: at most burst calls
 * back to back, then one per interval), measured on actual release times.
 */
final class ReleaseLedger {

    private long theoreticalNanos = Long.MIN_VALUE;

    /**
     * Releases one call at {@code nowNanos} if the rule allows, returning 0; otherwise returns how many
     * nanoseconds to wait before trying again.
     */
    synchronized long tryRelease(long nowNanos, long intervalNanos, int burst) {
        long tolerance = (burst - 1) * intervalNanos;
        if (theoreticalNanos != Long.MIN_VALUE && nowNanos < theoreticalNanos - tolerance) {
            return theoreticalNanos - tolerance - nowNanos;
        }
        long base = theoreticalNanos == Long.MIN_VALUE ? nowNanos : Math.max(theoreticalNanos, nowNanos);
        theoreticalNanos = base + intervalNanos;
        return 0;
    }
}
