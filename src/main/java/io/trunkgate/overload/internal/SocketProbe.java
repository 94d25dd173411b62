package io.trunkgate.overload.internal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * How long datagrams wait in a UDP socket before the gateway reads them. An overloaded gateway's backlog builds
 * there first (the kernel queues up to the socket's buffer, megabytes), where no clock of the gateway's can see it.
 * So probe datagrams are sent to the socket, which queue behind whatever waits, and the socket's reader notes each
 * probe it reads: a probe not read yet has waited at least its age, and so has everything received before it. A
 * probe carries a random secret of this socket's, so no datagram from elsewhere passes for one. Until the first
 * probe comes back the wait reads zero: a probe that can never arrive (a firewall on the host) must not make the
 * gateway shed every call.
 */
public final class SocketProbe {

    /** Sends a probe so that it arrives at the measured socket. */
    @FunctionalInterface
    public interface Sender {
        /** Sends {@code probe}; false when the socket is closed and nothing was sent. */
        boolean send(byte[] probe) throws IOException;
    }

    public static final int LENGTH = 24;
    /** Probes whose send time is kept: more in flight than this and the wait reads as that of the oldest kept. */
    private static final int KEPT = 64;
    private static final byte[] MAGIC = {'t', 'g', 'p', 'r', 'o', 'b', 'e', 0};

    private final Sender sender;
    private final LongSupplier nanoClock;
    private final byte[] prefix = new byte[16];
    private final AtomicLongArray sentAt = new AtomicLongArray(KEPT);
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong read = new AtomicLong();
    /** How long the last probe read had waited, in nanoseconds. */
    private volatile long lastReadWaitNanos;

    /** Probes a socket that {@code sender} reaches. */
    public SocketProbe(Sender sender, LongSupplier nanoClock) {
        this.sender = sender;
        this.nanoClock = nanoClock;
        System.arraycopy(MAGIC, 0, prefix, 0, MAGIC.length);
        byte[] secret = new byte[8];
        new SecureRandom().nextBytes(secret);
        System.arraycopy(secret, 0, prefix, MAGIC.length, secret.length);
    }

    /** Sends the next probe, unless the socket is closed. Called from one thread. */
    public void send() throws IOException {
        long seq = sent.get() + 1;
        long previousAt = sentAt.get((int) (seq % KEPT));
        sentAt.set((int) (seq % KEPT), nanoClock.getAsLong());
        sent.set(seq);
        byte[] probe = ByteBuffer.allocate(LENGTH).put(prefix).putLong(seq).array();
        boolean sentNow = false;
        try {
            sentNow = sender.send(probe);
        } finally {
            if (!sentNow) {
                sent.set(seq - 1);
                sentAt.set((int) (seq % KEPT), previousAt);
            }
        }
    }

    /** When (nanoClock) the last probe was sent; meaningless before the first. */
    public long lastSentNanos() {
        return sentAt.get((int) (sent.get() % KEPT));
    }

    /** How many probes this socket has been sent. */
    public long sent() {
        return sent.get();
    }

    /** Whether every probe sent has been read. */
    public boolean allRead() {
        return read.get() >= sent.get();
    }

    /** Whether the datagram just read is one of this socket's probes: then it is accounted for, and not SIP. */
    public boolean read(byte[] data, int length) {
        if (length != LENGTH || !Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length)) {
            return false;
        }
        long seq = ByteBuffer.wrap(data, prefix.length, Long.BYTES).getLong();
        long lastSent = sent.get();
        if (seq > 0 && seq <= lastSent) {
            read.accumulateAndGet(seq, Math::max);
            if (seq > lastSent - KEPT) {
                lastReadWaitNanos = Math.max(0, nanoClock.getAsLong() - sentAt.get((int) (seq % KEPT)));
            }
        }
        return true;
    }

    /** How long the last probe read had waited in the socket, in nanoseconds; 0 before the first. */
    public long lastReadWaitNanos() {
        return lastReadWaitNanos;
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
