package io.trunkgate.sip.jainsip;

import gov.nist.core.HostPort;
import gov.nist.javax.sip.stack.ConnectionOrientedMessageChannel;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.NioTcpMessageProcessor;
import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.sip.wire.NewCallTriage;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.event.Level;

/**
 * A TCP or TLS listener: JAIN-SIP's NIO TCP listener with, for TLS, a {@link TlsLayer} on each connection (with
 * engines from the {@link TlsEngines} it is given, and a handshake timeout), and the limits it lacks: in NIO mode the stack ignores MAX_CONNECTIONS and
 * READ_TIMEOUT (only its blocking TCP reads them), and NIO_MAX_SOCKET_IDLE_TIME counts any byte as activity, so
 * a peer sending one byte now and then is never idle: idle connections pile up without bound, and half messages
 * or one byte a second keep a connection open for ever. Here a connection beyond {@link TcpLimits#maxConnections()} in all or
 * {@link TcpLimits#maxConnectionsPerSource()} from one address is closed as it is accepted, and a sweep closes
 * connections idle for {@link TcpLimits#idleTimeout()} or with a message incomplete for
 * {@link TcpLimits#messageTimeout()}. Every connection, inbound or to a carrier, is a
 * {@link FramedTcpConnection}.
 */
final class CappedTcpListener extends NioTcpMessageProcessor {

    private static final int DEFAULT_MAX_MESSAGE_SIZE = 64 << 10;
    private static final Duration MAX_SWEEP_INTERVAL = Duration.ofSeconds(1);
    private static final Duration MIN_SWEEP_INTERVAL = Duration.ofMillis(10);

    private final TcpLimits limits;
    private final ReceivedMessageParser received;
    private final NewCallTriage newCalls;
    private final TlsEngines tls;
    private final Capture capture;
    private final Set<FramedTcpConnection> watched = ConcurrentHashMap.newKeySet();
    private final ConcurrentMap<InetAddress, Integer> inboundBySource = new ConcurrentHashMap<>();
    private final AtomicInteger inbound = new AtomicInteger();
    private final Set<SocketChannel> outboundSockets = ConcurrentHashMap.newKeySet();
    private final ConcurrentMap<InetSocketAddress, FramedTcpConnection> inboundByRemote = new ConcurrentHashMap<>();
    private final SIPStackTimerTask sweep = new SIPStackTimerTask() {
        @Override
        public void runTask() {
            closeExpired();
        }

        @Override
        public Object getThreadHash() {
            return null;
        }
    };

    /** @param tls null for TCP, else where the TLS connections' engines come from */
    CappedTcpListener(InetAddress address, SIPTransactionStack stack, int port, TcpLimits limits,
                      ReceivedMessageParser received, NewCallTriage newCalls, TlsEngines tls, Capture capture) {
        super(address, stack, port);
        this.capture = capture;
        this.limits = limits;
        this.received = received;
        this.newCalls = newCalls;
        this.tls = tls;
        if (tls != null) {
            transport = "TLS";
        }
    }

    TlsEngines tls() {
        return tls;
    }

    @Override
    public boolean isSecure() {
        return tls != null;
    }

    /** Where the connections report the messages they receive and send. */
    Capture capture() {
        return capture;
    }

    ReceivedMessageParser received() {
        return received;
    }

    NewCallTriage newCalls() {
        return newCalls;
    }

    int maxMessageSize() {
        return sipStack.getMaxMessageSize() > 0 ? sipStack.getMaxMessageSize() : DEFAULT_MAX_MESSAGE_SIZE;
    }

    @Override
    public void start() throws IOException {
        super.start();
        long interval = Math.min(limits.idleTimeout().toMillis(), limits.messageTimeout().toMillis());
        if (tls != null) {
            interval = Math.min(interval, tls.handshakeTimeout().toMillis());
        }
        interval /= 10;
        interval = Math.max(MIN_SWEEP_INTERVAL.toMillis(), Math.min(MAX_SWEEP_INTERVAL.toMillis(), interval));
        sipStack.getTimer().scheduleWithFixedDelay(sweep, interval, interval);
    }

    @Override
    public void stop() {
        if (sweep.getSipTimerTask() != null) {
            sipStack.getTimer().cancel(sweep);
        }
        super.stop();
    }

    /** A connection a peer opened, called by the selector thread as it accepts it. */
    @Override
    public NioTcpMessageChannel createMessageChannel(NioTcpMessageProcessor processor, SocketChannel client)
            throws IOException {
        FramedTcpConnection channel = new FramedTcpConnection(this, client);
        nioHandler.putMessageChannel(client, channel);
        watched.add(channel);
        InetAddress source = channel.remote().getAddress();
        int total = inbound.incrementAndGet();
        int fromSource = inboundBySource.merge(source, 1, Integer::sum);
        String refusal = total > limits.maxConnections()
                ? total - 1 + " connections open, sip.tcp.max-connections is " + limits.maxConnections()
                : fromSource > limits.maxConnectionsPerSource()
                ? fromSource - 1 + " connections open from there, sip.tcp.max-connections-per-source is "
                        + limits.maxConnectionsPerSource()
                : null;
        if (refusal != null) {
            TransportProperties.LOG.log(Level.WARN, transport + " connection from " + channel.remote() + " closed: "
                    + refusal);
            channel.shutDown();
        } else {
            inboundByRemote.put(channel.remote(), channel);
        }
        return channel;
    }

    @Override
    public MessageChannel createMessageChannel(HostPort target) throws IOException {
        return channelTo(MessageChannel.getKey(target, transport), target::getInetAddress, target.getPort());
    }

    @Override
    public MessageChannel createMessageChannel(InetAddress host, int port) throws IOException {
        return channelTo(MessageChannel.getKey(host, port, transport), () -> host, port);
    }

    private interface Resolver {
        InetAddress address() throws IOException;
    }

    /** The connection {@code remote} opened to this listener, while it is open; else null. */
    FramedTcpConnection inboundFrom(InetSocketAddress remote) {
        return inboundByRemote.get(remote);
    }

    /** The open connection (inbound or outbound) under {@code key}, else a new outbound one. */
    private MessageChannel channelTo(String key, Resolver host, int port) throws IOException {
        ConnectionOrientedMessageChannel open = messageChannels.get(key);
        if (usable(open)) {
            return open;
        }
        FramedTcpConnection inbound = inboundFrom(new InetSocketAddress(host.address(), port));
        if (inbound != null) {
            return inbound;
        }
        synchronized (this) {
            open = messageChannels.get(key);
            if (usable(open)) {
                return open;
            }
            FramedTcpConnection channel = new FramedTcpConnection(host.address(), port, sipStack, this);
            channel.markCached();
            messageChannels.put(key, channel);
            watched.add(channel);
            return channel;
        }
    }

    /** A TLS channel whose socket closed is done: a new send needs a new channel, with a new handshake. */
    private boolean usable(ConnectionOrientedMessageChannel channel) {
        return channel != null && (tls == null || ((FramedTcpConnection) channel).getSocketChannel().isOpen());
    }

    /**
     * The socket already open to {@code address}, connected or still connecting, else a new one. JAIN-SIP
     * 1.3.0-91 drops a socket it has just opened from its own table (NIOHandler.openOutgoingConnection never sets
     * its "connected" flag), so the first send on a new channel to a carrier opened a second connection; when the
     * first connected before the channel moved to the second, the selector found no channel for the second and
     * abandoned it, and the request was never sent.
     */
    @Override
    public SocketChannel connect(InetSocketAddress address, InetAddress localAddress, int timeout)
            throws IOException {
        for (SocketChannel socket : outboundSockets) {
            if (address.equals(remoteAddress(socket))) {
                return socket;
            }
        }
        SocketChannel socket = super.connect(address, localAddress, timeout);
        outboundSockets.add(socket);
        return socket;
    }

    private static SocketAddress remoteAddress(SocketChannel socket) {
        try {
            return socket.getRemoteAddress();
        } catch (IOException closed) {
            return null;
        }
    }

    /**
     * {@code channel} closed {@code socket}: the first time, an inbound channel gives back its place under the
     * caps; {@code finished} when the channel is done for good, not going on with a new socket.
     */
    void closed(FramedTcpConnection channel, SocketChannel socket, boolean firstClose, boolean finished) {
        outboundSockets.remove(socket);
        if (channel.isInbound()) {
            inboundByRemote.remove(channel.remote(), channel);
        }
        if (firstClose && channel.isInbound()) {
            inbound.decrementAndGet();
            inboundBySource.computeIfPresent(channel.remote().getAddress(),
                    (source, count) -> count > 1 ? count - 1 : null);
        }
        if (finished) {
            watched.remove(channel);
        }
    }

    private void closeExpired() {
        long now = System.nanoTime();
        for (FramedTcpConnection channel : watched) {
            FramedTcpConnection.Expiry expiry = channel.expiry(now, limits);
            if (expiry == FramedTcpConnection.Expiry.HANDSHAKE_INCOMPLETE) {
                TransportProperties.LOG.log(Level.INFO, "TLS connection with " + channel.remote()
                        + " closed: no handshake within " + tls.handshakeTimeout().toMillis() + " ms");
                channel.shutDown();
            } else if (expiry == FramedTcpConnection.Expiry.IDLE) {
                TransportProperties.LOG.log(Level.DEBUG, transport + " connection with " + channel.remote()
                        + " closed: nothing received for " + limits.idleTimeout().toMillis() + " ms");
                channel.shutDown();
            } else if (expiry == FramedTcpConnection.Expiry.MESSAGE_INCOMPLETE) {
                TransportProperties.LOG.log(Level.INFO, transport + " connection with " + channel.remote()
                        + " closed: a message still incomplete " + limits.messageTimeout().toMillis()
                        + " ms after its first byte");
                channel.shutDown();
            }
        }
    }
}
