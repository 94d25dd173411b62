package io.trunkgate.sip.transport.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.ssl.SslHandler;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import io.trunkgate.throttle.SourceAnswerBudget;
import io.trunkgate.tls.TlsEngines;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLEngine;
import org.slf4j.event.Level;

/**
 * SIP over TCP, or over TLS: the listeners of that transport and every connection, those peers opened and those
 * the gateway opened, one per remote address. A connection a peer opened is capped ({@link ConnectionCap}); every
 * connection is timed out when idle ({@link IdleTimeout}) or with a message incomplete too long
 * ({@link IncompleteMessageTimeout}), framed ({@link StreamFramer}), and for TLS runs an {@link SslHandler} over the
 * engines of the {@link TlsEngines} with its handshake timeout, renegotiation refused
 * ({@link RenegotiationRefusal}) and its outcome watched ({@link TlsHandshakeWatch}). A send to an address reuses
 * the connection open to it, else opens one; one that cannot be connected, or whose handshake fails, fails the
 * sends waiting for it at once.
 */
public final class StreamTransport implements AutoCloseable {

    /** A carrier that does not accept a connection within this is treated as refusing it. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** Adds the handlers after the framing and its timeout to a connection's pipeline. */
    @FunctionalInterface
    public interface Rest {
        void add(ChannelPipeline pipeline);
    }

    /** Everything a stream transport is built from. */
    public record Settings(Transport transport, TcpLimits limits, int maxMessageSize, Duration handshakeTimeout,
                           TlsEngines tls, LongSupplier nanoClock) {
        public Settings {
            if ((transport == Transport.TLS) != (tls != null) || transport == Transport.UDP) {
                throw new IllegalArgumentException("TLS, and only TLS, takes engines: " + transport);
            }
        }
    }

    /** A connection and when it is ready for writes: at once for one a peer opened, once connected for another. */
    private record Connection(Channel channel, ChannelFuture ready) {
    }

    private final Settings settings;
    private final Sockets sockets;
    private final EventLoopGroup group;
    private final Rest rest;
    private final SourceAnswerBudget answers;
    private final ConcurrentMap<InetSocketAddress, Connection> connections = new ConcurrentHashMap<>();
    private final List<Channel> servers = new ArrayList<>();
    /** The addresses of this transport's listeners that are not wildcards: connections leave from them. */
    private final List<InetAddress> sources = new CopyOnWriteArrayList<>();

    public StreamTransport(Settings settings, Sockets sockets, EventLoopGroup group, Rest rest) {
        this.settings = settings;
        this.sockets = sockets;
        this.group = group;
        this.rest = rest;
        this.answers = new SourceAnswerBudget(StreamFramer.ANSWERS_PER_SECOND, 100_000, settings.nanoClock());
    }

    public Transport transport() {
        return settings.transport();
    }

    /**
     * Binds {@code listener} and accepts connections on it from now on; returns the address it is bound to.
     *
     * @throws IOException its address does not resolve, or its port is taken
     */
    public InetSocketAddress listen(SipListener listener) throws IOException {
        InetSocketAddress address = new InetSocketAddress(
                InetAddress.getByName(Hosts.unbracketed(listener.host())), listener.port());
        ConnectionCap cap = new ConnectionCap(settings.limits(), settings.transport());
        ChannelFuture bind = new ServerBootstrap().group(group).channel(sockets.server())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelFlow.attach(channel, settings.transport(), channel.remoteAddress());
                        channel.pipeline().addLast(cap).addLast(new Registration());
                        stream(channel.pipeline(), true,
                                settings.tls() == null ? null : settings.tls().accepted(address));
                    }
                })
                .bind(address).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            BindException failure = new BindException(settings.transport().name() + " listener "
                    + listener.describe() + " cannot be bound: " + bind.cause().getMessage());
            failure.initCause(bind.cause());
            throw failure;
        }
        synchronized (servers) {
            servers.add(bind.channel());
        }
        if (!address.getAddress().isAnyLocalAddress()) {
            sources.add(address.getAddress());
        }
        return (InetSocketAddress) bind.channel().localAddress();
    }

    /** The handlers every connection has, after the cap of one a peer opened. */
    private void stream(ChannelPipeline pipeline, boolean inbound, SSLEngine engine) {
        pipeline.addLast(new IdleTimeout(settings.limits().idleTimeout(), settings.transport(), settings.nanoClock()));
        if (engine != null) {
            SslHandler tls = new SslHandler(engine);
            tls.setHandshakeTimeoutMillis(settings.handshakeTimeout().toMillis());
            pipeline.addLast(new RenegotiationRefusal()).addLast(tls)
                    .addLast(new TlsHandshakeWatch(inbound, settings.tls()::callerCertificate));
        }
        pipeline.addLast(new StreamFramer(settings.maxMessageSize(), settings.transport(), answers,
                        settings.nanoClock()))
                .addLast(new IncompleteMessageTimeout(settings.limits().messageTimeout(), settings.transport(),
                        settings.nanoClock()));
        rest.add(pipeline);
    }

    /** Files a connection a peer opened under its address once the cap let it in, for sends to that address. */
    private final class Registration extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            InetSocketAddress remote = ChannelFlow.of(channel).remote();
            Connection connection = new Connection(channel, channel.newSucceededFuture());
            connections.put(remote, connection);
            channel.closeFuture().addListener(closed -> connections.remove(remote, connection));
            ctx.fireChannelActive();
        }
    }

    /** Whether a connection with {@code remote} (a peer opened it, or the gateway did) is open now. */
    public boolean isOpen(InetSocketAddress remote) {
        Connection connection = connections.get(remote);
        return connection != null && connection.channel().isActive();
    }

    /** Connections open now (or connecting), both ways. */
    public int connections() {
        return connections.size();
    }

    /**
     * Sends {@code message} on the connection open to {@code to}, else on a new one; fails at once if it cannot be
     * opened (connect refused or timed out, TLS handshake failed, no trust to be read for the carrier).
     */
    public CompletionStage<Void> send(InetSocketAddress to, byte[] message) {
        Connection open = connections.get(to);
        Connection connection;
        try {
            connection = open != null && open.channel().isOpen() ? open : connectionTo(to);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> sent = new CompletableFuture<>();
        connection.ready().addListener(ready -> {
            if (ready.isSuccess()) {
                write(connection.channel(), message, sent);
            } else {
                sent.completeExceptionally(ready.cause());
            }
        });
        return sent;
    }

    /** Sends {@code message} on {@code flow}'s connection only. */
    public static CompletionStage<Void> sendOn(ChannelFlow flow, byte[] message) {
        CompletableFuture<Void> sent = new CompletableFuture<>();
        write(flow.channel(), message, sent);
        return sent;
    }

    private static void write(Channel channel, byte[] message, CompletableFuture<Void> sent) {
        channel.writeAndFlush(Unpooled.wrappedBuffer(message)).addListener(write -> {
            if (write.isSuccess()) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(write.cause());
            }
        });
    }

    /** The connection open to {@code to}, else a new one: one connection per address, however many send. */
    private synchronized Connection connectionTo(InetSocketAddress to) throws IOException {
        Connection open = connections.get(to);
        if (open != null && open.channel().isOpen()) {
            return open;
        }
        Connection connection = connect(to);
        connections.put(to, connection);
        return connection;
    }

    /** A new connection to {@code to}, connecting; it leaves the table as soon as it fails or closes. */
    private Connection connect(InetSocketAddress to) throws IOException {
        SSLEngine engine = settings.tls() == null ? null : settings.tls().connecting(to);
        Bootstrap bootstrap = new Bootstrap().group(group).channel(sockets.stream())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) CONNECT_TIMEOUT.toMillis())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        ChannelFlow.attach(channel, settings.transport(), to);
                        stream(channel.pipeline(), false, engine);
                    }
                });
        // from the address the gateway listens on (carriers let addresses in, and the Via names it)
        for (InetAddress source : sources) {
            if (source.getClass() == to.getAddress().getClass()) {
                bootstrap.localAddress(source, 0);
                break;
            }
        }
        ChannelFuture connect = bootstrap.connect(to);
        Connection connection = new Connection(connect.channel(), connect);
        // before any send's listener: a send that failed finds the table without the connection
        connect.addListener(done -> {
            if (!done.isSuccess()) {
                connections.remove(to, connection);
                TransportLog.LOG.log(Level.WARN, settings.transport().name() + " connection to " + to + " failed: "
                        + done.cause().getMessage());
            }
        });
        connect.channel().closeFuture().addListener(closed -> connections.remove(to, connection));
        return connection;
    }

    @Override
    public void close() {
        List<Channel> listening;
        synchronized (servers) {
            listening = List.copyOf(servers);
            servers.clear();
        }
        listening.forEach(server -> server.close().awaitUninterruptibly());
        connections.values().forEach(connection -> connection.channel().close().awaitUninterruptibly());
    }
}
