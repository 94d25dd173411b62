package io.trunkgate.pace.internal;

/**
 * This gateway's own record of when it released calls to one carrier. Slots in Redis are spaced exactly,
 * but a timer that fires late (a busy core, a GC pause) would otherwise let the calls behind it go out
 * back to back; the ledger holds each release to the same rule as the slots (GCRA: at most burst calls
 * back to back, then spacing), measured on actual release times.
 *
 * <p>The ledger's spacing is the interval less a catch-up share: a twentieth of it, at most 1 ms. A late
 * release thus delays the calls queued behind it by a shrinking amount and the queue is back on its Redis
 * slots after a few calls, instead of carrying every timer delay forward for as long as the carrier stays
 * busy. Releases are never earlier than their slots, so the rate over any longer period is still the
 * carrier's, and no two calls leave closer than the interval less 1 ms.
 */
final class ReleaseLedger {

    private static final long MAX_CATCH_UP_NANOS = 1_000_000;

    private long theoreticalNanos = Long.MIN_VALUE;

    /**
     * Releases one call at {@code nowNanos} if the rule allows, returning 0; otherwise returns how many
     * nanoseconds to wait before trying again.
     */
    synchronized long tryRelease(long nowNanos, long intervalNanos, int burst) {
        long spacing = intervalNanos - Math.min(intervalNanos / 20, MAX_CATCH_UP_NANOS);
        long tolerance = (burst - 1) * spacing;
        if (theoreticalNanos != Long.MIN_VALUE && nowNanos < theoreticalNanos - tolerance) {
            return theoreticalNanos - tolerance - nowNanos;
        }
        long base = theoreticalNanos == Long.MIN_VALUE ? nowNanos : Math.max(theoreticalNanos, nowNanos);
        theoreticalNanos = base + spacing;
        return 0;
    }
}
