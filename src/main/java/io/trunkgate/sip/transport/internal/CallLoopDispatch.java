package io.trunkgate.sip.transport.internal;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.trunkgate.config.Transport;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.sip.transport.Inbound;
import io.trunkgate.sip.transport.InboundMessage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * The one hand-off of a received message: to its call's loop ({@link CallLoops}), where it is delivered to the
 * {@link Inbound}. Every message of a call is thus handled on one thread in the order it was read. On the call's
 * loop, how long the message waited since it was read goes to overload control; a new INVITE over UDP that waited
 * longer than T1 is dropped unread, since its caller has sent it again by now (and working through stale copies is
 * how an overloaded proxy stays overloaded).
 */
@ChannelHandler.Sharable
public final class CallLoopDispatch extends ChannelInboundHandlerAdapter {

    /** T1 (RFC 3261 §17.1.1.1): a caller that heard nothing sends its INVITE again after this long. */
    static final long RETRANSMIT_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final CallLoops loops;
    private final Inbound inbound;
    private final LongConsumer waitedMs;
    private final LongSupplier nanoClock;
    private final AtomicLong dropped = new AtomicLong();

    /** @param waitedMs told how long each message waited for its call's loop, in milliseconds */
    public CallLoopDispatch(CallLoops loops, Inbound inbound, LongConsumer waitedMs, LongSupplier nanoClock) {
        this.loops = loops;
        this.inbound = inbound;
        this.waitedMs = waitedMs;
        this.nanoClock = nanoClock;
    }

    /** New INVITEs dropped because they waited longer than T1. */
    public long dropped() {
        return dropped.get();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof InboundMessage message)) {
            ctx.fireChannelRead(msg);
            return;
        }
        int loop = loops.indexFor(message.head().callId(), message.remote());
        loops.handOver(loop, () -> deliver(loop, message));
    }

    private void deliver(int loop, InboundMessage message) {
        loops.taken(loop);
        long waitedNanos = nanoClock.getAsLong() - message.receivedNanos();
        waitedMs.accept(TimeUnit.NANOSECONDS.toMillis(waitedNanos));
        if (waitedNanos > RETRANSMIT_INTERVAL_NANOS && message.transport() == Transport.UDP
                && message.head().isNewInvite()) {
            long count = dropped.incrementAndGet();
            if (!WarmUpSettings.ADDRESS.equals(message.remote().getAddress())) {
                TransportLog.LOG.log(Level.WARN, "new INVITE from " + message.remote() + " dropped unread: it waited "
                        + TimeUnit.NANOSECONDS.toMillis(waitedNanos) + " ms for its loop (" + count + " so far)");
            }
            return;
        }
        try {
            inbound.received(message);
        } catch (RuntimeException | StackOverflowError e) {
            // the loop handles every call of its share: it must go on whatever one message does
            TransportLog.LOG.log(Level.WARN, "SIP message from " + message.remote() + "/" + message.transport()
                    + " not handled: " + e, e);
        }
    }
}
