package io.trunkgate.admin;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a new connection at once when the server already has {@code maxTotal} open, or its source address
 * {@code maxPerAddress}: connections that are held open cannot exhaust the process's file descriptors, and one
 * client cannot take all the slots. First in the pipeline, so a refused connection costs no HTTP decoding.
 */
@ChannelHandler.Sharable
final class ConnectionCap extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(ConnectionCap.class);

    private final int maxTotal;
    private final int maxPerAddress;
    private final AtomicInteger open = new AtomicInteger();
    private final ConcurrentMap<InetAddress, Integer> openPerAddress = new ConcurrentHashMap<>();

    ConnectionCap(int maxTotal, int maxPerAddress) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = maxPerAddress;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        InetAddress source = ((InetSocketAddress) ctx.channel().remoteAddress()).getAddress();
        if (!take(source)) {
            log.debug("admin connection from {} refused: {} open in total (at most {}), {} from it (at most {})",
                    source, open.get(), maxTotal, openPerAddress.getOrDefault(source, 0), maxPerAddress);
            ctx.close();
            return;
        }
        ctx.channel().closeFuture().addListener(closed -> release(source));
        ctx.pipeline().remove(this);
        ctx.fireChannelActive();
    }

    private boolean take(InetAddress source) {
        if (open.incrementAndGet() > maxTotal) {
            open.decrementAndGet();
            return false;
        }
        if (openPerAddress.merge(source, 1, Integer::sum) > maxPerAddress) {
            release(source);
            return false;
        }
        return true;
    }

    private void release(InetAddress source) {
        open.decrementAndGet();
        openPerAddress.computeIfPresent(source, (address, count) -> count == 1 ? null : count - 1);
    }
}
