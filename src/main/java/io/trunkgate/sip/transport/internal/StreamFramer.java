package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.BadRequestAnswer;
import io.trunkgate.sip.wire.SipHead;
import io.trunkgate.sip.wire.SipStreamFramer;
import io.trunkgate.throttle.SourceAnswerBudget;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.slf4j.event.Level;

/**
 * Cuts a TCP or TLS connection's bytes into messages with a {@link SipStreamFramer} (RFC 3261 §18.3), answers an
 * RFC 5626 keep-alive ping (a double CRLF) with a pong (one CRLF), and after each read tells the handlers after it
 * whether a message is under way ({@link Progress}). A stream that cannot be framed (no end of headers within the
 * size limit, a Content-Length that is not one) gets a 400 for what arrived of its message, at most
 * {@link #ANSWERS_PER_SECOND} a second to one source, and its connection is closed: nothing after it can be read
 * as SIP.
 */
public final class StreamFramer extends ChannelInboundHandlerAdapter {

    /** Answers to unframeable streams one source gets a second, as many as to other broken requests. */
    public static final int ANSWERS_PER_SECOND = 5;
    private static final byte[] PONG = {'\r', '\n'};

    /** Whether part of a message has arrived after a read, for the incomplete-message timeout. */
    public enum Progress {
        /** No message is under way. */
        NONE,
        /** A message is under way that started with this read (or the one before it was completed by it). */
        STARTED,
        /** The message under way before this read still is. */
        GOING_ON
    }

    private final SipStreamFramer framer;
    private final Transport transport;
    private final SourceAnswerBudget answers;
    private final LongSupplier nanoClock;
    /** The stream was refused: what still arrives before the connection closes is not read. */
    private boolean refused;

    /**
     * @param maxMessageSize the largest message framed: a larger one is refused and its connection closed
     * @param answers        the budget of 400s per source, shared by a listener's connections
     */
    public StreamFramer(int maxMessageSize, Transport transport, SourceAnswerBudget answers, LongSupplier nanoClock) {
        this.framer = new SipStreamFramer(maxMessageSize);
        this.transport = transport;
        this.answers = answers;
        this.nanoClock = nanoClock;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf buffer)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (refused) {
            buffer.release();
            return;
        }
        byte[] bytes;
        try {
            bytes = new byte[buffer.readableBytes()];
            buffer.readBytes(bytes);
        } finally {
            buffer.release();
        }
        boolean partialBefore = framer.hasPartialMessage();
        int completed;
        try {
            completed = framer.add(bytes, new SipStreamFramer.Receiver() {
                @Override
                public void message(byte[] message, SipHead head) {
                    ctx.fireChannelRead(inbound(ctx.channel(), message, head));
                }

                @Override
                public void keepAlivePing() {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(PONG));
                }
            });
        } catch (SipStreamFramer.FramingException e) {
            refused = true;
            refuse(ctx, e.getMessage());
            return;
        }
        Progress progress = !framer.hasPartialMessage() ? Progress.NONE
                : !partialBefore || completed > 0 ? Progress.STARTED : Progress.GOING_ON;
        ctx.fireUserEventTriggered(progress);
    }

    private InboundMessage inbound(Channel channel, byte[] message, SipHead head) {
        ChannelFlow flow = ChannelFlow.of(channel);
        Optional<PresentedCertificate> certificate = TlsHandshakeWatch.callerCertificate(channel);
        return new InboundMessage(message, head, flow.remote(), flow.local(), transport, Optional.of(flow),
                certificate, nanoClock.getAsLong());
    }

    /** A 400 for the message that cannot be framed, if one can be written and the source has answers left. */
    private void refuse(ChannelHandlerContext ctx, String reason) {
        InetSocketAddress source = ChannelFlow.of(ctx.channel()).remote();
        Optional<byte[]> answer = BadRequestAnswer.to(framer.partialMessage(), BadRequestAnswer.PHRASE);
        boolean answered = answer.isPresent() && answers.allow(source.getAddress());
        String outcome = answered ? "answered 400" : answer.isEmpty() ? "dropped"
                : "dropped (over " + ANSWERS_PER_SECOND + " answers a second)";
        TransportLog.LOG.log(Level.INFO, "malformed SIP from " + source.getAddress().getHostAddress() + ":"
                + source.getPort() + "/" + transport.name() + " " + outcome + ", connection closed: " + reason);
        if (answered) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(answer.get())).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
