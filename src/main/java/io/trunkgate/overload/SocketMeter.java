package io.trunkgate.overload;

import io.trunkgate.overload.internal.SocketProbe;
import java.io.IOException;
import java.util.function.LongSupplier;

/**
 * How long datagrams wait unread in one UDP socket of an event-loop transport (a {@link SocketProbe}): the
 * transport delivers the probes ({@link Sender}: sent so that they arrive at this socket, among the
 * sockets that share its port) and hands each datagram it reads to {@link #read} before anything else. A socket whose
 * last probe came back within a {@link OverloadSettings#probePeriod()} and whose probes were all read has nothing
 * waiting in it: it is probed once an {@link OverloadSettings#interval()} only, as each probe costs wake-ups.
 */
public final class SocketMeter {

    /** Sends a probe so that it arrives at the measured socket (and not at another bound to the same port). */
    @FunctionalInterface
    public interface Sender {
        /** Sends {@code probe}; false when the socket is closed and nothing was sent. */
        boolean send(byte[] probe) throws IOException;
    }

    /** The length of a probe datagram: a datagram of any other length is none. */
    public static final int PROBE_LENGTH = SocketProbe.LENGTH;

    private final SocketProbe probe;
    private final LongSupplier nanoClock;
    private final long intervalNanos;
    private final long quickNanos;

    SocketMeter(Sender sender, OverloadSettings settings, LongSupplier nanoClock) {
        this.probe = new SocketProbe(sender::send, nanoClock);
        this.nanoClock = nanoClock;
        this.intervalNanos = settings.interval().toNanos();
        this.quickNanos = settings.probePeriod().toNanos();
    }

    /**
     * Whether the datagram just read, {@code length} bytes of {@code data}, is one of this socket's probes: then
     * it is accounted for, and not SIP.
     */
    public boolean read(byte[] data, int length) {
        return probe.read(data, length);
    }

    /** How long the oldest datagram still unread in the socket has waited, in nanoseconds (as of the probes). */
    public long socketWaitNanos() {
        return probe.waitNanos();
    }

    /** Whether nothing waits in the socket: it is probed less often. */
    public boolean relaxed() {
        return probe.allRead() && probe.lastReadWaitNanos() < quickNanos;
    }

    /** Sends the next probe, unless the socket is relaxed and was probed less than an interval ago. */
    public void sendProbe() throws IOException {
        if (relaxed() && probe.sent() > 0 && nanoClock.getAsLong() - probe.lastSentNanos() < intervalNanos) {
            return;
        }
        probe.send();
    }
}
