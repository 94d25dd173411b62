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
 * Closes a connection whose message is still incomplete {@code sip.tcp.message-timeout} after its first byte: a
 * peer that sends a byte now and then is not idle, but it is not sending SIP. Follows the
 * {@link StreamFramer.Progress} the framer before it reports after each read; one check is pending at a time.
 */
public final class IncompleteMessageTimeout extends ChannelInboundHandlerAdapter {

    private static final long NONE = Long.MIN_VALUE;

    private final long timeoutNanos;
    private final Transport transport;
    private final LongSupplier nanoClock;
    private long startedNanos = NONE;
    private ScheduledFuture<?> check;

    public IncompleteMessageTimeout(Duration timeout, Transport transport, LongSupplier nanoClock) {
        this.timeoutNanos = timeout.toNanos();
        this.transport = transport;
        this.nanoClock = nanoClock;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (!(event instanceof StreamFramer.Progress progress)) {
            ctx.fireUserEventTriggered(event);
            return;
        }
        if (progress == StreamFramer.Progress.NONE) {
            startedNanos = NONE;
        } else if (progress == StreamFramer.Progress.STARTED) {
            startedNanos = nanoClock.getAsLong();
            if (check == null) {
                schedule(ctx, timeoutNanos);
            }
        }
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

    private void schedule(ChannelHandlerContext ctx, long delayNanos) {
        check = ctx.executor().schedule(() -> check(ctx), delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check(ChannelHandlerContext ctx) {
        check = null;
        if (startedNanos == NONE || !ctx.channel().isOpen()) {
            return;
        }
        long incompleteNanos = nanoClock.getAsLong() - startedNanos;
        if (incompleteNanos >= timeoutNanos) {
            TransportLog.LOG.log(Level.INFO, transport.sipName().toUpperCase() + " connection with "
                    + ctx.channel().remoteAddress() + " closed: a message still incomplete "
                    + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms after its first byte");
            ctx.close();
        } else {
            schedule(ctx, timeoutNanos - incompleteNanos);
        }
    }

    private void stop() {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }
}
