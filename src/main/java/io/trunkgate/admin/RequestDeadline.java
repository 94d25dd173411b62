package io.trunkgate.admin;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.FullHttpRequest;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that has not delivered a whole request within the timeout after it was accepted: one that
 * stays idle as well as one whose request trickles in a byte at a time (slow loris), which a read-idle timeout
 * such as Netty's {@code ReadTimeoutHandler} never catches. Every answer closes its connection, so there is no
 * keep-alive idling to time as well. One instance per connection, after the aggregation into whole requests.
 */
final class RequestDeadline extends ChannelInboundHandlerAdapter {

    private static final Logger log = LoggerFactory.getLogger(RequestDeadline.class);

    private final Duration timeout;
    private ScheduledFuture<?> expiry;

    RequestDeadline(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        expiry = ctx.executor().schedule(() -> {
            log.debug("admin connection from {} closed: no whole request within {}", ctx.channel().remoteAddress(),
                    timeout);
            ctx.close();
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
        if (message instanceof FullHttpRequest) {
            ctx.pipeline().remove(this);
        }
        ctx.fireChannelRead(message);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        expiry.cancel(false);
    }
}
