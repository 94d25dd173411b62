package io.trunkgate.sip.transport;

import java.io.IOException;
import java.net.DatagramSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * How long received datagrams wait, as an overload signal (the idea of CoDel, RFC 8289): first in the UDP
 * listener's socket until its receive loop reads them ({@link SocketWaitProbe}, sampled on each
 * {@link #probeSockets()} tick), then for a worker. The gateway is overloaded while the shortest waits of an
 * interval add up to more than the target. A burst makes some datagrams wait and is gone within the interval; a
 * standing queue makes every one of them wait. Unlike a fixed cap on new calls per second it needs no tuning per
 * machine, and it also sees a cold JVM or a busy host that is slower than any cap.
 */
public final class QueueDelay {

    /** CoDel's interval: longer than a burst or a GC pause takes to drain, short enough to react at once. */
    public static final Duration INTERVAL = Duration.ofMillis(100);
    /** How often the sockets are probed: a tenth of the interval, so that each interval has several samples. */
    public static final Duration PROBE_PERIOD = INTERVAL.dividedBy(10);
    /** A backlog this many times the target ahead of a new INVITE refuses it (see {@link #refuseNewCall}). */
    static final int BACKLOG_FACTOR = 4;
    /** How long after the waits last stood over the target a backlog of one target refuses a new INVITE. */
    static final Duration STRICT_AFTER_OVERLOAD = Duration.ofSeconds(1);

    private final StandingWait socketWait;
    private final StandingWait workerWait;
    private final LongSupplier nanoClock;
    private final List<SocketWaitProbe> probes = new CopyOnWriteArrayList<>();
    /** Until when (nanoClock) a backlog of one target ahead of a new INVITE refuses it. */
    private long strictUntilNanos;
    private final OverloadRate rate;

    /** {@code interval}: how long a wait must stand before it counts. */
    public QueueDelay(Duration interval, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.socketWait = new StandingWait(interval.toNanos(), nanoClock);
        this.workerWait = new StandingWait(interval.toNanos(), nanoClock);
        this.strictUntilNanos = nanoClock.getAsLong();
        this.rate = new OverloadRate(interval, nanoClock.getAsLong());
    }

    /** A worker took a datagram that had waited {@code waitMs} since the listener read it. */
    public void record(long waitMs) {
        workerWait.record(waitMs);
    }

    /** From now on {@link #probeSockets()} measures this listener's socket too. */
    public SocketWaitProbe probe(DatagramSocket socket) {
        SocketWaitProbe probe = new SocketWaitProbe(socket, nanoClock);
        probes.add(probe);
        return probe;
    }

    /**
     * Samples how long the oldest datagram still unread in each listener's socket has waited, then sends each
     * listener its next probe; returns when to call it again: after {@link #PROBE_PERIOD}, or, while every listener
     * is relaxed (see {@link SocketWaitProbe#relaxed()}), after {@link SocketWaitProbe#RELAXED_PERIOD}.
     */
    public Duration probeSockets() {
        long longest = 0;
        for (SocketWaitProbe probe : probes) {
            longest = Math.max(longest, probe.waitNanos());
        }
        socketWait.record(TimeUnit.NANOSECONDS.toMillis(longest));
        for (SocketWaitProbe probe : probes) {
            try {
                probe.send();
            } catch (IOException | RuntimeException e) {
                OverloadLog.LOG.log(Level.WARN, "queue-delay probe not sent: " + e);
            }
        }
        return probes.stream().allMatch(SocketWaitProbe::relaxed) ? SocketWaitProbe.RELAXED_PERIOD : PROBE_PERIOD;
    }

    /**
     * Whether a new INVITE with {@code waitAhead} ahead of it (in the socket and in its worker's queue) is to be
     * refused for a target of {@code target} (zero: never); if not, it counts as let in. It is while the waits stand
     * over the target ({@link #overloaded}); when the backlog ahead of it is {@link #BACKLOG_FACTOR} times the
     * target, since a socket read in one go after the machine was busy fills the workers' queues faster than the
     * standing wait can say so, while a burst or a short pause (tens of milliseconds) must not turn calls away; for
     * {@link #STRICT_AFTER_OVERLOAD} after the waits last stood over the target, when the backlog ahead of it is
     * over the target itself: coming out of an overload, letting new calls into every queue shorter than four
     * targets fills each one to that again, and admitted calls wait that long on every message of theirs; and
     * when it is over the rate an {@link OverloadRate} lets in since an overload.
     */
    public synchronized boolean refuseNewCall(Duration target, Duration waitAhead) {
        if (target.isZero()) {
            return false;
        }
        long now = nanoClock.getAsLong();
        long standingMs = standingWaitMs();
        rate.adjust(now, standingMs, target.toMillis());
        if (overloaded(standingMs, target)) {
            strictUntilNanos = now + STRICT_AFTER_OVERLOAD.toNanos();
            return true;
        }
        Duration limit = now - strictUntilNanos < 0 ? target : target.multipliedBy(BACKLOG_FACTOR);
        return waitAhead.compareTo(limit) > 0 || !rate.letIn(now);
    }

    /** How many new calls a second are let in since an overload; 0 while they are not limited. */
    public synchronized double newCallsPerSecondLimit() {
        double limit = rate.limitPerSecond();
        return limit == Double.POSITIVE_INFINITY ? 0 : limit;
    }

    /**
     * Whether the shortest waits of the last full interval, in the socket and for a worker, added up to more than
     * {@code target}.
     */
    boolean overloaded(Duration target) {
        return overloaded(standingWaitMs(), target);
    }

    private static boolean overloaded(long standingWaitMs, Duration target) {
        return standingWaitMs > target.toMillis();
    }

    /** The shortest waits of the last full interval, in the socket and for a worker, in milliseconds. */
    public long standingWaitMs() {
        return socketWait.shortestMs() + workerWait.shortestMs();
    }

    /** The shortest of the waits recorded in an interval, as of the last full one. */
    private static final class StandingWait {

        private static final long NONE = Long.MAX_VALUE;

        private final long intervalNanos;
        private final LongSupplier nanoClock;
        private final AtomicLong intervalStart;
        private final AtomicLong shortestMs = new AtomicLong(NONE);
        private volatile long lastShortestMs;

        StandingWait(long intervalNanos, LongSupplier nanoClock) {
            this.intervalNanos = intervalNanos;
            this.nanoClock = nanoClock;
            this.intervalStart = new AtomicLong(nanoClock.getAsLong());
        }

        void record(long waitMs) {
            roll();
            shortestMs.accumulateAndGet(Math.max(0, waitMs), Math::min);
        }

        long shortestMs() {
            roll();
            return lastShortestMs;
        }

        private void roll() {
            long now = nanoClock.getAsLong();
            long start = intervalStart.get();
            if (now - start >= intervalNanos && intervalStart.compareAndSet(start, now)) {
                long shortest = shortestMs.getAndSet(NONE);
                // An interval with nothing recorded means an empty queue, unless it ended long ago: then it says
                // nothing.
                lastShortestMs = shortest == NONE || now - start >= 2 * intervalNanos ? 0 : shortest;
            }
        }
    }
}
