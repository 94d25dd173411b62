package io.trunkgate.sip.transport.internal;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.event.Level;

/**
 * The caps on the connections peers open to one listener: a connection beyond {@link TcpLimits#maxConnections()}
 * in all, or beyond {@link TcpLimits#maxConnectionsPerSource()} from one IP address, is closed as it opens, before
 * anything reads from it. Shared by the listener's connections; each counts from its start to its close.
 */
@ChannelHandler.Sharable
public final class ConnectionCap extends ChannelInboundHandlerAdapter {

    private final int maxConnections;
    private final int maxPerSource;
    private final Transport transport;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> bySource = new ConcurrentHashMap<>();

    public ConnectionCap(TcpLimits limits, Transport transport) {
        this.maxConnections = limits.maxConnections();
        this.maxPerSource = limits.maxConnectionsPerSource();
        this.transport = transport;
    }

    /** Connections open to the listener now. */
    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
        int total = open.incrementAndGet();
        int fromSource = bySource.merge(remote.getAddress(), 1, Integer::sum);
        String refusal = total > maxConnections
                ? total - 1 + " connections open, sip.tcp.max-connections is " + maxConnections
                : fromSource > maxPerSource
                ? fromSource - 1 + " connections open from there, sip.tcp.max-connections-per-source is "
                        + maxPerSource
                : null;
        if (refusal != null) {
            TransportLog.LOG.log(Level.WARN, transport.name() + " connection from " + remote + " closed: "
                    + refusal);
            ctx.close();
            return;
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        open.decrementAndGet();
        bySource.computeIfPresent(((InetSocketAddress) ctx.channel().remoteAddress()).getAddress(),
                (source, count) -> count > 1 ? count - 1 : null);
        ctx.fireChannelInactive();
    }
}
