package io.trunkgate.overload;

import io.trunkgate.overload.internal.AdmittedRate;
import io.trunkgate.overload.internal.StandingWait;
import io.trunkgate.throttle.ThrottledLog;
import io.trunkgate.throttle.TokenBucket;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Overload control's one entry point: whether a new call is shed, and why ({@link #shed}). It decides from the
 * configured caps and from one signal, how long received messages wait (the idea of CoDel, RFC 8289): first in a
 * UDP socket until it is read (the most backlogged socket's, each measured by probes, a {@link SocketMeter},
 * sampled on each {@link #probeSockets()} tick), then for the loop of the message's call ({@link #messageWaited}).
 * The gateway is overloaded while the shortest waits of an interval add up to more than the target. Unlike a fixed
 * cap on new calls per second the wait needs no tuning per machine, and it also sees a cold JVM or a busy host that
 * is slower than any cap. The rules are in docs/overload.md.
 */
public final class OverloadController {

    private static final ThrottledLog log = new ThrottledLog(LoggerFactory.getLogger("io.trunkgate.overload"), 10,
            Duration.ofSeconds(1));

    private final Supplier<OverloadSettings> settings;
    private final LongSupplier nanoClock;
    /** The settings the meters were built with: their interval and probe period do not change on reload. */
    private final OverloadSettings built;
    private final StandingWait socketWait;
    private final StandingWait loopWait;
    private final AdmittedRate rate;
    private final TokenBucket newCalls = new TokenBucket();
    private final List<SocketMeter> sockets = new CopyOnWriteArrayList<>();
    private final List<LoopMeter> loops = new CopyOnWriteArrayList<>();
    private volatile boolean draining;

    /**
     * @param settings  the current settings, read on every decision (a reload changes the caps and the target)
     * @param nanoClock what every meter and rate here runs on ({@link System#nanoTime} in production)
     */
    public OverloadController(Supplier<OverloadSettings> settings, LongSupplier nanoClock) {
        this.settings = settings;
        this.nanoClock = nanoClock;
        this.built = settings.get();
        long intervalNanos = built.interval().toNanos();
        this.socketWait = new StandingWait(intervalNanos, nanoClock);
        this.loopWait = new StandingWait(intervalNanos, nanoClock);
        this.rate = new AdmittedRate(built, nanoClock.getAsLong());
    }

    /** From now on every new call is shed: the gateway drains. */
    public void drain() {
        draining = true;
    }

    /** The drain is over (an operator resumed): new calls are let in again. */
    public void resume() {
        draining = false;
    }

    /**
     * Why a new call is shed, or empty to let it in (then it counts as let in). In order: a drain; the caps on calls
     * in progress ({@code callsInProgress}), dialogs ({@code dialogsFull}) and new calls a second; then, with a
     * target set, overload: the wait stood over the target, the backlog ahead of this call ({@code waitAhead}: in
     * the socket, then for its call's loop) is over {@link OverloadSettings#backlogFactor()} targets (a socket read
     * in one go after the machine was busy fills the loops' queues faster than the standing wait can say so), or the
     * call is over the rate let in since an overload.
     */
    public synchronized Optional<ShedReason> shed(int callsInProgress, boolean dialogsFull, Duration waitAhead) {
        OverloadSettings now = settings.get();
        if (draining) {
            return Optional.of(ShedReason.SHUTTING_DOWN);
        }
        if (callsInProgress >= now.maxCallsInProgress()) {
            return Optional.of(ShedReason.CALLS_IN_PROGRESS);
        }
        if (dialogsFull) {
            return Optional.of(ShedReason.DIALOGS);
        }
        long nanos = nanoClock.getAsLong();
        double perSecond = now.maxNewCallsPerSecond();
        if (perSecond > 0 && !newCalls.tryTake(nanos, perSecond,
                Math.max(1, perSecond / now.newCallBurstsPerSecond()))) {
            return Optional.of(ShedReason.CALL_RATE);
        }
        // last: what it lets in counts as admitted, and the rate it lets in after an overload is cut from that
        return overloaded(now, nanos, waitAhead) ? Optional.of(ShedReason.OVERLOAD) : Optional.empty();
    }

    private boolean overloaded(OverloadSettings now, long nanos, Duration waitAhead) {
        Duration target = now.target();
        if (target.isZero()) {
            return false;
        }
        long standingMs = standingWaitMs();
        rate.adjust(nanos, standingMs, target.toMillis(), this::busiestLoopShare);
        if (standingMs > target.toMillis()) {
            return true;
        }
        return waitAhead.compareTo(target.multipliedBy(now.backlogFactor())) > 0 || !rate.letIn(nanos);
    }

    /** A call's loop took a received message that had waited {@code waitMs} since its socket was read. */
    public void messageWaited(long waitMs) {
        loopWait.record(waitMs);
    }

    /**
     * From now on {@link #probeSockets()} measures this UDP socket too, with probes {@code sender} delivers to it;
     * the socket's reader hands each datagram to the meter first ({@link SocketMeter#read}).
     */
    public SocketMeter socketMeter(SocketMeter.Sender sender) {
        SocketMeter meter = new SocketMeter(sender, built, nanoClock);
        sockets.add(meter);
        return meter;
    }

    /** {@link #probeSockets()} no longer measures {@code meter}'s socket (closed). */
    public void forget(SocketMeter meter) {
        sockets.remove(meter);
    }

    /**
     * A meter for one SIP loop's busy time, which the loop samples from now on: while new calls are limited, the
     * busiest loop's share says how many more the loops could carry.
     */
    public LoopMeter loopMeter() {
        LoopMeter meter = new LoopMeter(built);
        loops.add(meter);
        return meter;
    }

    /** The busiest SIP loop's busy share over about the last second; NaN when no loop has said. */
    public double busiestLoopShare() {
        double busiest = Double.NaN;
        for (LoopMeter loop : loops) {
            double share = loop.busyShare();
            busiest = Double.isNaN(busiest) || share > busiest ? share : busiest;
        }
        return busiest;
    }

    /**
     * Samples how long the oldest datagram still unread in each UDP socket has waited, then sends each socket its
     * next probe; returns when to call it again: after {@link OverloadSettings#probePeriod()}, or, while every
     * socket is relaxed, after an {@link OverloadSettings#interval()}.
     */
    public Duration probeSockets() {
        long longest = 0;
        for (SocketMeter socket : sockets) {
            longest = Math.max(longest, socket.socketWaitNanos());
        }
        socketWait.record(TimeUnit.NANOSECONDS.toMillis(longest));
        for (SocketMeter socket : sockets) {
            try {
                socket.sendProbe();
            } catch (IOException | RuntimeException e) {
                log.log(Level.WARN, "queue-delay probe not sent: " + e);
            }
        }
        return sockets.stream().allMatch(SocketMeter::relaxed) ? built.interval() : built.probePeriod();
    }

    /** The shortest waits of the last full interval, in the sockets and for the calls' loops, in milliseconds. */
    public long standingWaitMs() {
        return socketWait.shortestMs() + loopWait.shortestMs();
    }

    /** How many new calls a second are let in since an overload; 0 while they are not limited. */
    public synchronized double newCallsPerSecondLimit() {
        double limit = rate.limitPerSecond();
        return limit == Double.POSITIVE_INFINITY ? 0 : limit;
    }
}
