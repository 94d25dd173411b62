package io.trunkgate.sip.transport.internal;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.event.Level;

/**
 * The caps on the connections peers open to one listener: a connection beyond {@link TcpLimits#maxConnections()}
 * in all, or beyond {@link TcpLimits#maxConnectionsPerSource()} from one IP address, is closed as it is accepted,
 * before anything reads from it. On the listening channel's pipeline: connections are counted in the order they
 * were accepted, on the listener's loop, before they are handed to the loops that read them (which take them up
 * in no common order, so a count kept there would refuse an earlier connection in favour of a later one). Each
 * counts from its acceptance to its close.
 */
public final class ConnectionCap extends ChannelInboundHandlerAdapter {

    private final int maxConnections;
    private final int maxPerSource;
    private final Transport transport;
    /** Guarded by this: accepted on the listener's loop, released on the connections' loops as they close. */
    private int open;
    private final Map<InetAddress, Integer> bySource = new HashMap<>();

    public ConnectionCap(TcpLimits limits, Transport transport) {
        this.maxConnections = limits.maxConnections();
        this.maxPerSource = limits.maxConnectionsPerSource();
        this.transport = transport;
    }

    /** Connections open to the listener now. */
    public synchronized int open() {
        return open;
    }

    /** {@code msg} is a connection the listener accepted, not yet registered on the loop that will read it. */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof Channel connection)) {
            ctx.fireChannelRead(msg);
            return;
        }
        InetSocketAddress remote = (InetSocketAddress) connection.remoteAddress();
        String refusal = take(remote.getAddress());
        if (refusal != null) {
            TransportLog.LOG.log(Level.WARN, transport.name() + " connection from " + remote + " closed: "
                    + refusal);
            connection.unsafe().closeForcibly();
            return;
        }
        connection.closeFuture().addListener(closed -> release(remote.getAddress()));
        ctx.fireChannelRead(connection);
    }

    /** Counts a connection from {@code source}, or says why it is refused (and counts nothing). */
    private synchronized String take(InetAddress source) {
        int fromSource = bySource.getOrDefault(source, 0);
        if (open >= maxConnections) {
            return open + " connections open, sip.tcp.max-connections is " + maxConnections;
        }
        if (fromSource >= maxPerSource) {
            return fromSource + " connections open from there, sip.tcp.max-connections-per-source is "
                    + maxPerSource;
        }
        open++;
        bySource.put(source, fromSource + 1);
        return null;
    }

    private synchronized void release(InetAddress source) {
        open--;
        bySource.computeIfPresent(source, (address, count) -> count > 1 ? count - 1 : null);
    }
}
