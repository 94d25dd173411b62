package io.trunkgate.sip.transaction;

import java.time.Duration;

/**
 * The transaction layer's timers (RFC 3261 §17, table 4 of its appendix A; §16.8; RFC 6026).
 *
 * @param t1     the round-trip estimate: first retransmission interval (Timers A, E, G) and the unit of 64*T1
 *               (Timers B, F, H, J, L, M, and the wait for an INVITE's final response after its CANCEL, §9.1)
 * @param t2     the longest interval between retransmissions of a non-INVITE request and of an INVITE's final
 *               response (Timers E, G)
 * @param t4     how long a message stays in the network: Timers I and K over UDP
 * @param timerC how long a proxied INVITE may go without a provisional response (§16.8; above 3 minutes)
 * @param linger the longest a finished transaction waits only to absorb copies of its messages: bounds Timers D
 *               and J (over UDP; 0 over TCP and TLS) and L and M, which the RFC sets to 32 s or 64*T1; at 32 s
 *               with the RFC's T1 it bounds nothing
 */
public record TransactionTimers(Duration t1, Duration t2, Duration t4, Duration timerC, Duration linger) {

    /** RFC 3261's values: T1 500 ms, T2 4 s, T4 5 s, Timer C 3 minutes; no bound on the lingering timers. */
    public static final TransactionTimers RFC = new TransactionTimers(Duration.ofMillis(500), Duration.ofSeconds(4),
            Duration.ofSeconds(5), Duration.ofMinutes(3), Duration.ofSeconds(32));

    public TransactionTimers {
        if (t1.isNegative() || t1.isZero() || t2.compareTo(t1) < 0 || t4.isNegative() || timerC.isNegative()
                || timerC.isZero() || linger.isNegative()) {
            throw new IllegalArgumentException("timers need T1 > 0, T2 >= T1, T4 >= 0, Timer C > 0, linger >= 0: "
                    + this);
        }
    }

    /** These timers with another linger (the gateway's {@code sip.transaction-linger}). */
    public TransactionTimers withLinger(Duration linger) {
        return new TransactionTimers(t1, t2, t4, timerC, linger);
    }

    /** 64*T1: Timers B, F, H, and the wait after a CANCEL (§9.1). */
    public Duration sixtyFourT1() {
        return t1.multipliedBy(64);
    }
}
