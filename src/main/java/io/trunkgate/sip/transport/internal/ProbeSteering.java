package io.trunkgate.sip.transport.internal;

import io.trunkgate.overload.SocketMeter;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.HashMap;
import java.util.Map;

/**
 * Sends each UDP socket of a port its own overload probes. Sockets that share a port under SO_REUSEPORT each get
 * the datagrams the kernel's hash of source and destination sends them, so a probe measures the socket its source
 * port hashes to. Each socket's sender is found by trying: a probe from a new source port lands at some socket,
 * whose reader reports it ({@link #arrived}); the first source port to reach a socket that has no sender yet becomes
 * its sender, the others are closed. A socket tries at most {@value #MAX_TRIES} source ports; after that its probes
 * leave from one more new port each time, wherever they land (its wait then reads as another socket's).
 */
final class ProbeSteering implements SocketProbeReader.Arrivals, AutoCloseable {

    static final int MAX_TRIES = 16;

    private InetSocketAddress target;
    private final DatagramChannel[] senders;
    private final int[] tries;
    private final Map<Integer, DatagramChannel> candidates = new HashMap<>();
    private boolean closed;

    /** Steers probes to {@code sockets} sockets, once {@link #aim}ed at them. */
    ProbeSteering(int sockets) {
        this.senders = new DatagramChannel[sockets];
        this.tries = new int[sockets];
    }

    /**
     * From now on probes are sent to {@code target}: the address the sockets are bound to, as a probe reaches it (a
     * wildcard address made loopback). Until then none is.
     */
    synchronized void aim(InetSocketAddress target) {
        this.target = target;
    }

    /** What sends the {@code socket}th socket's probes. */
    SocketMeter.Sender senderFor(int socket) {
        return probe -> send(socket, probe);
    }

    private synchronized boolean send(int socket, byte[] probe) throws IOException {
        if (closed || target == null) {
            return false;
        }
        DatagramChannel sender = senders[socket];
        if (sender == null) {
            sender = open();
            if (tries[socket] < MAX_TRIES) {
                tries[socket]++;
                candidates.put(((InetSocketAddress) sender.getLocalAddress()).getPort(), sender);
            } else {
                sendOnce(sender, probe);
                return true;
            }
        }
        sender.send(ByteBuffer.wrap(probe), target);
        return true;
    }

    private void sendOnce(DatagramChannel sender, byte[] probe) throws IOException {
        try (sender) {
            sender.send(ByteBuffer.wrap(probe), target);
        }
    }

    private DatagramChannel open() throws IOException {
        DatagramChannel channel = DatagramChannel.open(target.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
        try {
            channel.bind(new InetSocketAddress(target.getAddress(), 0));
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        return channel;
    }

    @Override
    public synchronized void arrived(int socket, int sourcePort) {
        DatagramChannel candidate = candidates.remove(sourcePort);
        if (candidate == null) {
            return;
        }
        if (senders[socket] == null && !closed) {
            senders[socket] = candidate;
        } else {
            closeQuietly(candidate);
        }
    }

    /** Whether every socket has a sender of its own. */
    synchronized boolean steered() {
        for (DatagramChannel sender : senders) {
            if (sender == null) {
                return false;
            }
        }
        return true;
    }

    @Override
    public synchronized void close() {
        closed = true;
        for (DatagramChannel sender : senders) {
            if (sender != null) {
                closeQuietly(sender);
            }
        }
        candidates.values().forEach(ProbeSteering::closeQuietly);
        candidates.clear();
    }

    private static void closeQuietly(DatagramChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // a datagram socket that fails to close holds nothing worth a line
        }
    }
}
