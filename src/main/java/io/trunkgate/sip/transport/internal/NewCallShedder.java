package io.trunkgate.sip.transport.internal;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.NewCallTriage;
import java.time.Duration;
import java.util.function.Function;

/**
 * Sheds new calls before anything else reads them: each message is put to the {@link NewCallTriage} (and through
 * it to the gate overload control decides by), which answers a new INVITE it sheds with a 503 written here, back
 * the way the INVITE came (from the same socket, or on the same connection), and absorbs the ACKs of those 503s.
 * Everything else goes on.
 */
@ChannelHandler.Sharable
public final class NewCallShedder extends ChannelInboundHandlerAdapter {

    private final NewCallTriage triage;
    private final Function<InboundMessage, Duration> waitAhead;

    /** @param waitAhead how long what is ahead of a message has waited (in its socket, for its call's loop) */
    public NewCallShedder(NewCallTriage triage, Function<InboundMessage, Duration> waitAhead) {
        this.triage = triage;
        this.waitAhead = waitAhead;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof InboundMessage message && triage.handled(message.head(), message.remote(),
                message.certificate(), () -> waitAhead.apply(message), answer -> answer(ctx, message, answer))) {
            return;
        }
        ctx.fireChannelRead(msg);
    }

    private static void answer(ChannelHandlerContext ctx, InboundMessage message, byte[] answer) {
        if (message.transport() == Transport.UDP) {
            ctx.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(answer), message.remote()));
        } else {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(answer));
        }
    }
}
