package io.trunkgate.sip.transport.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.ScheduledFuture;
import io.trunkgate.config.Transport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * Closes a connection on which nothing arrived for {@code sip.tcp.idle-timeout}: peers reconnect for their next
 * request, and a connection to a carrier is opened again by the next send. Any byte counts (a keep-alive ping, a
 * TLS record). One check is pending per connection at a time, at the earliest moment it could be idle.
 */
public final class IdleTimeout extends ChannelInboundHandlerAdapter {

    private final long timeoutNanos;
    private final Transport transport;
    private final LongSupplier nanoClock;
    private long lastReadNanos;
    private ScheduledFuture<?> check;

    public IdleTimeout(Duration timeout, Transport transport, LongSupplier nanoClock) {
        this.timeoutNanos = timeout.toNanos();
        this.transport = transport;
        this.nanoClock = nanoClock;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        start(ctx);
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        lastReadNanos = nanoClock.getAsLong();
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    private void start(ChannelHandlerContext ctx) {
        if (check == null) {
            lastReadNanos = nanoClock.getAsLong();
            schedule(ctx, timeoutNanos);
        }
    }

    private void schedule(ChannelHandlerContext ctx, long delayNanos) {
        check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check(ChannelHandlerContext ctx) {
        if (!ctx.channel().isOpen()) {
            return;
        }
        long idleNanos = nanoClock.getAsLong() - lastReadNanos;
        if (idleNanos >= timeoutNanos) {
            TransportLog.LOG.log(Level.DEBUG, transport.sipName().toUpperCase() + " connection with "
                    + ctx.channel().remoteAddress() + " closed: nothing received for "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
            ctx.close();
        } else {
            schedule(ctx, timeoutNanos - idleNanos);
        }
    }

    private void stop() {
        if (check != null) {
            check.cancel(false);
        }
    }
}
