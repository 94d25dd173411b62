package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.TransactionTimers;
import java.time.Duration;

/** The timers in nanoseconds, as the state machines arm them. */
final class Timing {

    /** No deadline. */
    static final long NONE = Long.MAX_VALUE;
    /** Timer D over UDP: "at least 32 seconds" (RFC 3261 §17.1.1.2), not a multiple of T1. */
    private static final Duration TIMER_D = Duration.ofSeconds(32);

    final long t1;
    final long t2;
    final long t4;
    final long timerC;
    /** 64*T1: Timers B, F, H and the wait after a CANCEL. */
    final long sixtyFourT1;
    /** Timer D over UDP, bounded by the linger. */
    final long timerD;
    /** Timers J (over UDP), L and M: 64*T1 bounded by the linger. */
    final long lingering;

    Timing(TransactionTimers timers) {
        t1 = timers.t1().toNanos();
        t2 = timers.t2().toNanos();
        t4 = timers.t4().toNanos();
        timerC = timers.timerC().toNanos();
        sixtyFourT1 = timers.sixtyFourT1().toNanos();
        long linger = timers.linger().toNanos();
        timerD = Math.min(TIMER_D.toNanos(), linger);
        lingering = Math.min(sixtyFourT1, linger);
    }
}
