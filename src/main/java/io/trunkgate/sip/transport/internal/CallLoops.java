package io.trunkgate.sip.transport.internal;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The loops of the group, and which one handles which call: a stable hash of the Call-ID (a message without one,
 * by its source address). For each loop it also keeps when the messages handed to it and not yet handled were
 * handed over, so that a new call can be told how long what is ahead of it on its loop has waited.
 */
public final class CallLoops {

    /** Hand-offs whose time is kept per loop: more pending than this and the wait reads as the oldest kept one's. */
    private static final int KEPT = 1024;

    private final EventLoop[] loops;
    private final Backlog[] backlogs;
    private final LongSupplier nanoClock;

    public CallLoops(EventLoopGroup group, LongSupplier nanoClock) {
        List<EventLoop> found = new ArrayList<>();
        for (EventExecutor executor : group) {
            found.add((EventLoop) executor);
        }
        this.loops = found.toArray(EventLoop[]::new);
        this.backlogs = new Backlog[loops.length];
        for (int i = 0; i < backlogs.length; i++) {
            backlogs[i] = new Backlog();
        }
        this.nanoClock = nanoClock;
    }

    /** How many loops there are. */
    public int size() {
        return loops.length;
    }

    /** The {@code index}th loop. */
    public EventLoop loop(int index) {
        return loops[index];
    }

    /** The loop of the call {@code callId}. */
    public EventLoop loopFor(String callId) {
        return loops[indexFor(callId)];
    }

    /** The loop of a message with {@code callId}, or by {@code source} when it has none. */
    int indexFor(String callId, InetSocketAddress source) {
        return callId != null ? indexFor(callId) : Math.floorMod(spread(source.hashCode()), loops.length);
    }

    private int indexFor(String callId) {
        return Math.floorMod(spread(callId.hashCode()), loops.length);
    }

    /** Call-IDs often differ in their last characters only: mix the high bits of the hash into the low ones. */
    private static int spread(int hash) {
        int h = hash * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** The index of the loop the calling thread is, or -1. */
    public int current() {
        for (int i = 0; i < loops.length; i++) {
            if (loops[i].inEventLoop()) {
                return i;
            }
        }
        return -1;
    }

    /** Runs {@code task} on the {@code index}th loop, noting when it was handed over; returns that time. */
    long handOver(int index, Runnable task) {
        long now = nanoClock.getAsLong();
        Backlog backlog = backlogs[index];
        long seq = backlog.handedOver.incrementAndGet();
        backlog.seqAt.set(slot(seq), 0);
        backlog.at.set(slot(seq), now);
        backlog.seqAt.set(slot(seq), seq);
        loops[index].execute(task);
        return now;
    }

    /** A task handed over by {@link #handOver} runs now. */
    void taken(int index) {
        backlogs[index].taken.incrementAndGet();
    }

    /** How long the oldest message handed to the loop of a message and not yet handled has waited. */
    public Duration waitAhead(String callId, InetSocketAddress source) {
        return waitAhead(indexFor(callId, source));
    }

    /** How long the oldest message handed to the {@code index}th loop and not yet handled has waited. */
    Duration waitAhead(int index) {
        Backlog backlog = backlogs[index];
        long taken = backlog.taken.get();
        long handedOver = backlog.handedOver.get();
        if (taken >= handedOver) {
            return Duration.ZERO;
        }
        long oldest = Math.max(taken + 1, handedOver - KEPT + 1);
        long before = backlog.seqAt.get(slot(oldest));
        long at = backlog.at.get(slot(oldest));
        // a hand-over numbered but not written yet (or written over meanwhile) has just happened
        if (before != oldest || backlog.seqAt.get(slot(oldest)) != oldest) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.max(0, nanoClock.getAsLong() - at));
    }

    private static int slot(long seq) {
        return (int) (seq % KEPT);
    }

    private static final class Backlog {
        final AtomicLong handedOver = new AtomicLong();
        final AtomicLong taken = new AtomicLong();
        final AtomicLongArray at = new AtomicLongArray(KEPT);
        final AtomicLongArray seqAt = new AtomicLongArray(KEPT);
    }
}
