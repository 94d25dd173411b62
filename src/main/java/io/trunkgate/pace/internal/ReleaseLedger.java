package io.trunkgate.pace.internal;

/**
 * This gateway's own record of when it released calls to one carrier. Slots in Redis are spaced exactly,
 * but a timer that fires late (a busy core, a GC pause) would otherwise let the calls behind it go out
 * back to back; the ledger holds each release to the same rule as the slots (GCRA: at most burst calls
 * back to back, then spacing), measured on actual release times.
 *
 * <p>The rule's spacing is the interval less a catch-up share (a quarter of it, at most 0.5 ms). Ordinary
 * timer lateness, below that share, therefore never holds back the next call, and after a longer stall the
 * queued calls get back onto their Redis slots within some calls instead of carrying the delay forward for as
 * long as the carrier stays busy. Releases are never earlier than their slots, so over any longer period the
 * rate is the carrier's; no two calls leave closer than the spacing: 0.5 ms less than the interval from
 * 500 cps down (50 cps: 19.5 ms), three quarters of it above (1,000 cps: 0.75 ms). The share is kept that
 * small because the send path after the release adds jitter of its own before the carrier sees the call.
 */
final class ReleaseLedger {

    private static final long MAX_CATCH_UP_NANOS = 500_000;

    private long theoreticalNanos = Long.MIN_VALUE;

    /**
     * Releases one call at {@code nowNanos} if the rule allows, returning 0; otherwise returns how many
     * nanoseconds to wait before trying again.
     */
    synchronized long tryRelease(long nowNanos, long intervalNanos, int burst) {
        long spacing = intervalNanos - Math.min(intervalNanos / 4, MAX_CATCH_UP_NANOS);
        long tolerance = (burst - 1) * spacing;
        if (theoreticalNanos != Long.MIN_VALUE && nowNanos < theoreticalNanos - tolerance) {
            return theoreticalNanos - tolerance - nowNanos;
        }
        long base = theoreticalNanos == Long.MIN_VALUE ? nowNanos : Math.max(theoreticalNanos, nowNanos);
        theoreticalNanos = base + spacing;
        return 0;
    }
}
