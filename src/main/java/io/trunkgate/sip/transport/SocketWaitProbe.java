package io.trunkgate.sip.transport;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * How long datagrams wait in a UDP listener's socket before its receive loop reads them. An overloaded gateway's
 * backlog builds there first (the one receive thread shares the cores with everything else, and the kernel queues
 * up to the socket's buffer, megabytes), where no clock of the gateway's can see it. So the listener sends itself a
 * probe datagram on every tick (every tenth while it is relaxed, see below), which queues behind whatever waits,
 * and the receive loop notes each probe it reads. A probe not read yet has waited at least its age, and so has
 * everything received before it.
 *
 * <p>A loop that spent nearly all its time blocked in its read had nothing waiting for it, so while it does (and
 * every probe came back), the socket is probed every tenth tick only: each probe costs two wake-ups (a tick's and
 * the loop's), which at low call rates are a large share of the gateway's, spent measuring a wait that cannot be
 * there. A backlog
 * needs a busy or descheduled loop, and that shows within one {@link #RELAXED_PERIOD}.
 *
 * <p>A probe carries a random secret of this listener's, so no datagram from elsewhere passes for one. Until the
 * first probe comes back the wait reads zero: a probe that can never arrive (a firewall on the host) must not
 * make the gateway shed every call.
 */
public final class SocketWaitProbe {

    static final int LENGTH = 24;
    /** Probes whose send time is kept: more in flight than this and the wait reads as that of the oldest kept. */
    private static final int KEPT = 64;
    /**
     * How often a relaxed socket is probed, and the window over which the loop's busy share is taken: a backlog
     * that begins while the loop looked relaxed shows within CoDel's interval.
     */
    static final Duration RELAXED_PERIOD = QueueDelay.INTERVAL;
    private static final long RELAXED_PERIOD_NANOS = RELAXED_PERIOD.toNanos();
    /**
     * The most of a window the loop may spend outside its read (handling, or descheduled) and count as relaxed:
     * well under the quarter it may spend handling datagrams itself ({@code LanedUdpListener}), since a
     * loop near that mark is one burst from a backlog that a slow tick would miss for up to a relaxed period, and
     * calls would be shed late and then many at once.
     */
    static final double RELAXED_BUSY_SHARE = 0.1;
    private static final byte[] MAGIC = {'t', 'g', 'p', 'r', 'o', 'b', 'e', 0};

    private final DatagramSocket socket;
    private final InetSocketAddress self;
    private final LongSupplier nanoClock;
    private final byte[] prefix = new byte[16];
    private final AtomicLongArray sentAt = new AtomicLongArray(KEPT);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong read = new AtomicLong();
    /** The receive loop's accounting, written by its thread only: the current window and its busy time. */
    private long windowStart;
    private long busyNanos;
    /** Whether the loop was busy at most {@link #RELAXED_BUSY_SHARE} of its last full window. */
    private volatile boolean relaxedWindow = true;
    /** When (nanoClock) the loop's last read returned: a loop blocked in its read for a whole window is relaxed. */
    private volatile long lastReadEnd;

    SocketWaitProbe(DatagramSocket socket, LongSupplier nanoClock) {
        this.socket = socket;
        this.nanoClock = nanoClock;
        long now = nanoClock.getAsLong();
        this.windowStart = now;
        this.lastReadEnd = now;
        InetAddress bound = socket.getLocalAddress();
        this.self = new InetSocketAddress(bound.isAnyLocalAddress() ? InetAddress.getLoopbackAddress() : bound,
                socket.getLocalPort());
        System.arraycopy(MAGIC, 0, prefix, 0, MAGIC.length);
        byte[] secret = new byte[8];
        new SecureRandom().nextBytes(secret);
        System.arraycopy(secret, 0, prefix, MAGIC.length, secret.length);
    }

    /**
     * The receive loop's read began at {@code readStart} and returned a datagram (a probe or not) at
     * {@code readEnd}: the time between its previous read's end and this read's start it was busy (handling, or
     * descheduled). Called by the loop's thread only.
     */
    public void loopRead(long readStart, long readEnd) {
        busyNanos += Math.max(0, readStart - lastReadEnd);
        lastReadEnd = readEnd;
        long window = readEnd - windowStart;
        if (window >= RELAXED_PERIOD_NANOS) {
            relaxedWindow = busyNanos <= window * RELAXED_BUSY_SHARE;
            windowStart = readEnd;
            busyNanos = 0;
        }
    }

    /**
     * Sends the next probe to the listener's own socket, unless it is closed, or relaxed and probed less than
     * {@link #RELAXED_PERIOD} ago. Called from one thread, the ticks'.
     */
    void send() throws IOException {
        if (socket.isClosed()) {
            return;
        }
        long now = nanoClock.getAsLong();
        long seq = sent.get() + 1;
        if (relaxed() && seq > 1 && now - sentAt.get((int) ((seq - 1) % KEPT)) < RELAXED_PERIOD_NANOS) {
            return;
        }
        sentAt.set((int) (seq % KEPT), now);
        sent.set(seq);
        byte[] probe = ByteBuffer.allocate(LENGTH).put(prefix).putLong(seq).array();
        socket.send(new DatagramPacket(probe, probe.length, self));
    }

    /**
     * Every probe read, and the loop spent at most {@link #RELAXED_BUSY_SHARE} of its last full window outside
     * its read (or has been blocked in it for a whole window). Not "nothing read since the last probe": under
     * load the receive loop, descheduled right after reading a probe off an empty socket, reads nothing for a tick
     * while datagrams pile up behind it, and that must not slow the probes down; its busy window says it is loaded.
     */
    boolean relaxed() {
        return read.get() >= sent.get()
                && (relaxedWindow || nanoClock.getAsLong() - lastReadEnd >= RELAXED_PERIOD_NANOS);
    }

    /** Whether the datagram just read is one of this listener's probes: then it is accounted for, and not SIP. */
    public boolean read(byte[] data, int length) {
        if (length != LENGTH || !Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length)) {
            return false;
        }
        long seq = ByteBuffer.wrap(data, prefix.length, Long.BYTES).getLong();
        if (seq > 0 && seq <= sent.get()) {
            read.accumulateAndGet(seq, Math::max);
        }
        return true;
    }

    /** How many probes this listener has sent. */
    long sent() {
        return sent.get();
    }

    /** How long the oldest probe not read yet has waited, in nanoseconds: 0 when every probe was read. */
    public long waitNanos() {
        long lastRead = read.get();
        long lastSent = sent.get();
        if (lastRead == 0 || lastRead >= lastSent) {
            return 0;
        }
        long oldest = Math.max(lastRead + 1, lastSent - KEPT + 1);
        return Math.max(0, nanoClock.getAsLong() - sentAt.get((int) (oldest % KEPT)));
    }
}
