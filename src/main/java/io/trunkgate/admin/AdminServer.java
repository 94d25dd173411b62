package io.trunkgate.admin;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.trunkgate.config.AdminSettings;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin HTTP server on Netty: one event-loop thread, requests of at most 64 KiB. Each connection's
 * pipeline: {@link ConnectionCap} against too many connections, HTTP codec, aggregation into whole requests
 * (413 beyond the size), {@link RequestDeadline} against requests that do not arrive in time,
 * {@link JsonReplyEncoder} for the answers, {@link MalformedRequestFilter} for requests the codec could not read,
 * {@link HostCheck} for requests not addressed to the server by its own names (DNS rebinding), {@link BearerAuth}
 * for requests that change something or read what needs the token, then {@link AdminRouter} to the endpoints of
 * {@link AdminApi} ({@link AdminRoutes}).
 */
public final class AdminServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    private static final int MAX_REQUEST_BYTES = 64 * 1024;

    private final Channel channel;

    private AdminServer(Channel channel) {
        this.channel = channel;
    }

    /**
     * Binds the settings' host and port (port 0: any free port) with their connection limits and serves
     * {@code api} on {@code group}'s threads (its owner stops them); the token is read per request.
     */
    public static AdminServer start(AdminSettings settings, AdminApi api, Supplier<Optional<String>> token,
                                    EventLoopGroup group) throws Exception {
        AdminRouter router = AdminRoutes.router(api);
        BearerAuth auth = new BearerAuth(token);
        JsonReplyEncoder encoder = new JsonReplyEncoder();
        MalformedRequestFilter malformed = new MalformedRequestFilter();
        HostCheck hosts = new HostCheck(settings.host());
        ConnectionCap cap = new ConnectionCap(settings.maxConnections(), settings.maxConnectionsPerAddress());
        Channel channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(cap);
                        ch.pipeline().addLast(requestHandlers(settings.requestTimeout(), encoder, malformed, hosts,
                                auth, router));
                    }
                })
                .bind(settings.host(), settings.port()).sync().channel();
        AdminServer server = new AdminServer(channel);
        log.info("admin HTTP on http://{}:{}/", settings.host(), server.address().getPort());
        return server;
    }

    /** A connection's handlers after its cap, in order: from its bytes to {@code router} and back. */
    static ChannelHandler[] requestHandlers(Duration requestTimeout, JsonReplyEncoder encoder,
                                            MalformedRequestFilter malformed, HostCheck hosts, BearerAuth auth,
                                            AdminRouter router) {
        return new ChannelHandler[] {new HttpServerCodec(), new HttpObjectAggregator(MAX_REQUEST_BYTES),
                new RequestDeadline(requestTimeout), encoder, malformed, hosts, auth, router};
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
