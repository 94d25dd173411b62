package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.InboundMessage;
import java.net.InetSocketAddress;

/**
 * Reports to SIP capture each message a socket reads and each it writes: placed after the decoder or framer (so over
 * TLS it sees the plaintext), it sees every message the handlers after it receive, and every write made from the
 * channel or from those handlers (the transports' sends, the 503s to shed calls). One per transport, shared by its
 * sockets.
 */
@ChannelHandler.Sharable
public final class CaptureHandler extends ChannelDuplexHandler {

    private final Capture capture;
    private final Transport transport;

    public CaptureHandler(Capture capture, Transport transport) {
        this.capture = capture;
        this.transport = transport;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (capture.on() && msg instanceof InboundMessage message) {
            capture.message(message.bytes(), 0, message.bytes().length, message.remote(), message.local(),
                    message.transport(), Capture.nowMicros());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (capture.on()) {
            if (msg instanceof DatagramPacket datagram) {
                sent(datagram.content(), (InetSocketAddress) ctx.channel().localAddress(), datagram.recipient());
            } else if (msg instanceof ByteBuf bytes) {
                sent(bytes, (InetSocketAddress) ctx.channel().localAddress(),
                        (InetSocketAddress) ctx.channel().remoteAddress());
            }
        }
        ctx.write(msg, promise);
    }

    private void sent(ByteBuf message, InetSocketAddress from, InetSocketAddress to) {
        if (from == null || to == null) {
            return;
        }
        int length = message.readableBytes();
        // a message handed over as a byte[] of its own (as the transports write them) is read where it is: nothing
        // changes it once written
        if (message.hasArray() && message.arrayOffset() + message.readerIndex() == 0
                && message.array().length == length) {
            capture.message(message.array(), 0, length, from, to, transport, Capture.nowMicros());
        } else {
            capture.message(ByteBufUtil.getBytes(message), 0, length, from, to, transport, Capture.nowMicros());
        }
    }
}
