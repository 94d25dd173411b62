package io.trunkgate.sip.transport;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How busy a UDP receive loop is, window by short window: whether it keeps up with its socket (most of its reads
 * waited for a datagram rather than finding one queued), and how much of its time went to handling datagrams
 * itself. It may handle one itself only while it keeps up and has time to spare: a loop that handles what the
 * idle workers would have woken for leaves them idle, so it handles more still, until datagrams stand in its
 * socket and new calls are shed while the workers have nothing to do. Used by the loop's thread only.
 */
public final class ReceiveLoopLoad {

    /** A read that took longer found the socket empty and waited for its datagram. */
    static final long WAITED_NANOS = 20_000;

    private final long windowNanos;
    private final long budgetNanos;
    private final LongSupplier nanoClock;
    private long windowStart;
    private long spent;
    private int reads;
    private int waitedReads;
    /** Whether most reads of the last full window waited. */
    private boolean keepingUp = true;

    /** {@code share} of every {@code window} (0 to 1) may be spent handling datagrams. */
    public ReceiveLoopLoad(Duration window, double share, LongSupplier nanoClock) {
        if (share < 0 || share > 1) {
            throw new IllegalArgumentException("share must be between 0 and 1: " + share);
        }
        this.windowNanos = window.toNanos();
        this.budgetNanos = (long) (windowNanos * share);
        this.nanoClock = nanoClock;
        this.windowStart = nanoClock.getAsLong();
    }

    /** The loop read a datagram, after waiting {@code nanos} for it. */
    public void read(long nanos) {
        roll(nanoClock.getAsLong());
        reads++;
        if (nanos > WAITED_NANOS) {
            waitedReads++;
        }
    }

    /** The time now, if the loop keeps up and this window's budget is not spent yet; else -1. */
    public long startHandling() {
        long now = nanoClock.getAsLong();
        roll(now);
        return keepingUp && spent < budgetNanos ? now : -1;
    }

    /** Handling begun at {@code start} (from {@link #startHandling()}) has ended. */
    public void handledSince(long start) {
        spent += nanoClock.getAsLong() - start;
    }

    private void roll(long now) {
        if (now - windowStart >= windowNanos) {
            // a window with no read at all, or windows gone by unseen, say the loop was waiting
            keepingUp = now - windowStart >= 2 * windowNanos || 2 * waitedReads >= reads;
            windowStart = now;
            spent = 0;
            reads = 0;
            waitedReads = 0;
        }
    }
}
