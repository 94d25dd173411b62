package io.trunkgate.overload;

import io.trunkgate.overload.internal.SocketProbe;
import java.io.IOException;
import java.net.DatagramSocket;
import java.util.function.LongSupplier;

/**
 * One meter of a UDP listener's receive loop, fed by the loop's thread: how busy the loop is (the share of each
 * {@link OverloadSettings#loopWindow()} it spent outside its read: handling datagrams, or descheduled), and how
 * long datagrams wait in its socket before it reads them (a {@link SocketProbe}). The busy share says two things:
 * whether the loop has time to spare to handle a datagram itself ({@link #mayHandle()}), and whether a backlog can
 * be building in its socket at all: a loop mostly blocked in its read had nothing waiting for it, so its socket
 * is probed once an {@link OverloadSettings#interval()} only (each probe costs two wake-ups, a large share of the
 * gateway's at low call rates).
 */
public final class ReceiveLoop implements ProbedSocket {

    private final SocketProbe probe;
    private final LongSupplier nanoClock;
    private final LongSupplier standingWaitMs;
    private final long windowNanos;
    private final long intervalNanos;
    private final double handlingShare;
    private final double relaxedShare;
    /** The loop's accounting, written by its thread only. */
    private long readStart;
    private long windowStart;
    private long busyNanos;
    /** The busy share of the last full window. */
    private volatile double lastBusyShare;
    /** When (nanoClock) the loop's last read returned. */
    private volatile long lastReadEnd;

    ReceiveLoop(DatagramSocket socket, OverloadSettings settings, LongSupplier nanoClock,
                LongSupplier standingWaitMs) {
        this.probe = new SocketProbe(socket, nanoClock);
        this.nanoClock = nanoClock;
        this.standingWaitMs = standingWaitMs;
        this.windowNanos = settings.loopWindow().toNanos();
        this.intervalNanos = settings.interval().toNanos();
        this.handlingShare = settings.loopHandlingShare();
        this.relaxedShare = settings.loopRelaxedShare();
        long now = nanoClock.getAsLong();
        this.readStart = now;
        this.windowStart = now;
        this.lastReadEnd = now;
    }

    /** The loop is about to block in its read. */
    public void reading() {
        readStart = nanoClock.getAsLong();
    }

    /**
     * The loop's read returned this datagram: the time since its previous read returned, up to this read's start,
     * it was busy. Whether the datagram is one of the listener's probes: then it is accounted for, and not SIP.
     */
    public boolean read(byte[] data, int length) {
        long now = nanoClock.getAsLong();
        busyNanos += Math.max(0, readStart - lastReadEnd);
        lastReadEnd = now;
        long window = now - windowStart;
        if (window >= windowNanos) {
            lastBusyShare = (double) busyNanos / window;
            windowStart = now;
            busyNanos = 0;
        }
        return probe.read(data, length);
    }

    /**
     * Whether the loop may handle the datagram it just read itself rather than wake a worker (which on a virtual
     * machine can cost about as much as the handling): no wait stood lately, and the loop was busy at most
     * {@link OverloadSettings#loopHandlingShare()} of its last window and of this one so far. A loop that handles
     * what idle workers would have woken for leaves them idle, so it handles more still, until datagrams stand in
     * its socket and new calls are shed while the workers have nothing to do.
     */
    public boolean mayHandle() {
        return lastBusyShare <= handlingShare && busyNanos < windowNanos * handlingShare
                && standingWaitMs.getAsLong() == 0;
    }

    /** How long the oldest datagram still unread in the socket has waited, in nanoseconds (as of the probes). */
    @Override
    public long socketWaitNanos() {
        return probe.waitNanos();
    }

    /**
     * Every probe read, and the loop was busy at most {@link OverloadSettings#loopRelaxedShare()} of its last
     * window, or has been blocked in its read for a whole interval. Not "nothing read since the last probe": a
     * loop descheduled right after reading a probe off an empty socket reads nothing for a while as datagrams pile
     * up behind it, and that must not slow the probes down.
     */
    @Override
    public boolean relaxed() {
        return probe.allRead() && (lastBusyShare <= relaxedShare
                || nanoClock.getAsLong() - lastReadEnd >= intervalNanos);
    }

    /** Sends the next probe, unless the loop is relaxed and was probed less than an interval ago. */
    @Override
    public void sendProbe() throws IOException {
        if (relaxed() && probe.sent() > 0 && nanoClock.getAsLong() - probe.lastSentNanos() < intervalNanos) {
            return;
        }
        probe.send();
    }
}
