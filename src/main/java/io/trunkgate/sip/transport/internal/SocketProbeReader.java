package io.trunkgate.sip.transport.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.overload.SocketMeter;
import java.util.List;

/**
 * Takes the overload probes out of a UDP socket's datagrams before anything else reads them: a probe is accounted
 * for by the {@link SocketMeter} it belongs to (normally this socket's; while the probes are being steered, one
 * meant for another socket of the same port may arrive here) and never delivered. Which socket read a probe from
 * which source port is what {@link ProbeSteering} learns its steering from.
 */
public final class SocketProbeReader extends ChannelInboundHandlerAdapter {

    /** Where a probe arrived: at the {@code socket}th socket, from {@code sourcePort}. */
    @FunctionalInterface
    public interface Arrivals {
        void arrived(int socket, int sourcePort);
    }

    private final int socket;
    private final List<SocketMeter> meters;
    private final Arrivals arrivals;
    private final int probeLength;

    /**
     * @param socket the index of this socket among those of its port
     * @param meters the meters of those sockets, by index
     */
    public SocketProbeReader(int socket, List<SocketMeter> meters, int probeLength, Arrivals arrivals) {
        this.socket = socket;
        this.meters = List.copyOf(meters);
        this.probeLength = probeLength;
        this.arrivals = arrivals;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof DatagramPacket packet && packet.content().readableBytes() == probeLength) {
            ByteBuf content = packet.content();
            byte[] bytes = new byte[probeLength];
            content.getBytes(content.readerIndex(), bytes);
            for (int i = 0; i < meters.size(); i++) {
                if (meters.get((socket + i) % meters.size()).read(bytes, probeLength)) {
                    arrivals.arrived(socket, packet.sender().getPort());
                    packet.release();
                    return;
                }
            }
        }
        ctx.fireChannelRead(msg);
    }
}
