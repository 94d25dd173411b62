package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.DatagramPacket;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.Flow;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.wire.SipHead;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A datagram as a message: its bytes copied out of the socket's buffer at their size, its head read once, its
 * sender's flow. A datagram of nothing but line breaks (a keep-alive) or of nothing at all is dropped here.
 */
public final class DatagramDecoder extends MessageToMessageDecoder<DatagramPacket> {

    private final Function<InetSocketAddress, Flow> flowTo;
    private final LongSupplier nanoClock;

    /** @param flowTo the flow back to a sender, by its address */
    public DatagramDecoder(Function<InetSocketAddress, Flow> flowTo, LongSupplier nanoClock) {
        this.flowTo = flowTo;
        this.nanoClock = nanoClock;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, DatagramPacket packet, List<Object> out) {
        ByteBuf content = packet.content();
        if (onlyLineBreaks(content)) {
            return;
        }
        byte[] bytes = new byte[content.readableBytes()];
        content.getBytes(content.readerIndex(), bytes);
        InetSocketAddress sender = packet.sender();
        out.add(new InboundMessage(bytes, SipHead.read(bytes, 0, bytes.length), sender, packet.recipient(),
                Transport.UDP, Optional.of(flowTo.apply(sender)), Optional.empty(), nanoClock.getAsLong()));
    }

    private static boolean onlyLineBreaks(ByteBuf content) {
        for (int i = content.readerIndex(); i < content.writerIndex(); i++) {
            byte b = content.getByte(i);
            if (b != '\r' && b != '\n') {
                return false;
            }
        }
        return true;
    }
}
