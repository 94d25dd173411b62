package io.trunkgate.sip.transport.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.trunkgate.config.SipListener;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.SocketMeter;
import java.io.IOException;
import java.net.BindException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * One UDP listener: under epoll one socket per loop, all bound to the listener's address with SO_REUSEPORT (the
 * kernel spreads senders over them by a hash of their addresses), under NIO one socket. Each socket reads on its
 * own loop: the overload probes are taken out ({@link SocketProbeReader}), then each datagram is decoded
 * ({@link DatagramDecoder}) and goes on to the handlers {@link Rest} adds. Messages are sent from the socket of the
 * loop that sends them, so that they leave from the listener's address and port without a hop between threads.
 */
public final class UdpListener implements AutoCloseable {

    /** RFC 768's largest datagram: one of any size a peer sends is read whole. */
    static final int MAX_DATAGRAM = 65_535;
    /** Room in each socket for bursts and stalls (the probes see how long they wait there). */
    private static final int SOCKET_BUFFER = 4 << 20;

    /** Adds the handlers after the decoder to a socket's pipeline. */
    @FunctionalInterface
    public interface Rest {
        /** @param socketWait how long the oldest datagram waiting unread in this socket has waited */
        void add(ChannelPipeline pipeline, UdpListener listener, LongSupplier socketWait);
    }

    private final SipListener listener;
    private final List<Channel> channels = new ArrayList<>();
    /** The socket to send from on each loop. */
    private final Channel[] byLoop;
    private final CallLoops loops;
    private final OverloadController overload;
    private final List<SocketMeter> meters = new ArrayList<>();
    private final ProbeSteering steering;
    private volatile InetSocketAddress local;

    private UdpListener(SipListener listener, CallLoops loops, OverloadController overload, int sockets,
                        InetAddress bound) {
        this.listener = listener;
        this.loops = loops;
        this.overload = overload;
        this.byLoop = new Channel[loops.size()];
        this.steering = new ProbeSteering(sockets);
        for (int i = 0; i < sockets; i++) {
            meters.add(overload.socketMeter(steering.senderFor(i)));
        }
        this.local = new InetSocketAddress(bound, listener.port());
    }

    /**
     * Binds {@code listener}'s sockets.
     *
     * @throws IOException its address does not resolve, or its port is taken; nothing stays bound then
     */
    public static UdpListener bind(SipListener listener, Sockets sockets, CallLoops loops, OverloadController overload,
                                   LongSupplier nanoClock, Rest rest) throws IOException {
        InetAddress bound = InetAddress.getByName(Hosts.unbracketed(listener.host()));
        int count = sockets.reusePort() ? loops.size() : 1;
        UdpListener udp = new UdpListener(listener, loops, overload, count, bound);
        try {
            if (listener.port() != 0 && sockets.reusePort()) {
                // SO_REUSEPORT would let these sockets share a port another of the user's processes holds
                // the same way (a second gateway): see first that the port is free.
                checkFree(new InetSocketAddress(bound, listener.port()));
            }
            for (int i = 0; i < count; i++) {
                udp.bindSocket(i, sockets, nanoClock, rest);
            }
        } catch (IOException | RuntimeException e) {
            udp.close();
            throw e;
        }
        udp.steering.aim(probeTarget(udp.local));
        return udp;
    }

    private void bindSocket(int index, Sockets sockets, LongSupplier nanoClock, Rest rest) throws IOException {
        Bootstrap bootstrap = new Bootstrap().group(loops.loop(index)).channel(sockets.datagram())
                .option(ChannelOption.SO_RCVBUF, SOCKET_BUFFER)
                .option(ChannelOption.SO_SNDBUF, SOCKET_BUFFER)
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(MAX_DATAGRAM))
                .handler(new ChannelInitializer<DatagramChannel>() {
                    @Override
                    protected void initChannel(DatagramChannel channel) {
                        SocketMeter meter = meters.get(index);
                        channel.pipeline().addLast(new SocketProbeReader(index, meters, SocketMeter.PROBE_LENGTH, steering))
                                .addLast(new DatagramDecoder(sender -> new DatagramFlow(UdpListener.this, sender),
                                        nanoClock));
                        rest.add(channel.pipeline(), UdpListener.this, meter::socketWaitNanos);
                    }
                });
        if (sockets.reusePort()) {
            bootstrap.option(EpollChannelOption.SO_REUSEPORT, true);
        }
        ChannelFuture bind = bootstrap.bind(local).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            throw bindFailure(bind.cause());
        }
        Channel channel = bind.channel();
        channels.add(channel);
        local = new InetSocketAddress(local.getAddress(), ((InetSocketAddress) channel.localAddress()).getPort());
        if (sockets.reusePort()) {
            byLoop[index] = channel;
        } else {
            Arrays.fill(byLoop, channel);
        }
    }

    private IOException bindFailure(Throwable cause) {
        IOException failure = new BindException("UDP listener " + listener.describe() + " cannot be bound: "
                + cause.getMessage());
        failure.initCause(cause);
        return failure;
    }

    private static void checkFree(InetSocketAddress address) throws IOException {
        try (java.nio.channels.DatagramChannel probe = java.nio.channels.DatagramChannel.open(
                address.getAddress() instanceof Inet6Address ? StandardProtocolFamily.INET6
                        : StandardProtocolFamily.INET)) {
            probe.bind(address);
        } catch (IOException e) {
            throw new BindException("UDP " + address + " is in use: " + e.getMessage());
        }
    }

    /** Where a probe reaches sockets bound to {@code local}: a wildcard address as the loopback of its family. */
    private static InetSocketAddress probeTarget(InetSocketAddress local) throws IOException {
        InetAddress address = local.getAddress();
        if (address.isAnyLocalAddress()) {
            address = address instanceof Inet4Address ? InetAddress.getByName("127.0.0.1")
                    : InetAddress.getByName("::1");
        }
        return new InetSocketAddress(address, local.getPort());
    }

    public SipListener listener() {
        return listener;
    }

    /** The address the sockets are bound to. */
    public InetSocketAddress localAddress() {
        return local;
    }

    /** Whether the listener's sockets are open. */
    public boolean isOpen() {
        return !channels.isEmpty() && channels.get(0).isOpen();
    }

    /** Whether a datagram can leave from here to {@code address}: same family, or an IPv6 wildcard (dual stack). */
    public boolean reaches(InetSocketAddress address, boolean sameFamilyOnly) {
        InetAddress bound = local.getAddress();
        boolean sameFamily = (bound instanceof Inet6Address) == (address.getAddress() instanceof Inet6Address);
        return sameFamily || !sameFamilyOnly && bound instanceof Inet6Address && bound.isAnyLocalAddress();
    }

    /** Sends {@code message} to {@code to} from the socket of the calling loop (the first one elsewhere). */
    public CompletionStage<Void> send(InetSocketAddress to, byte[] message) {
        int loop = loops.current();
        Channel channel = loop >= 0 && byLoop[loop] != null ? byLoop[loop] : channels.get(0);
        CompletableFuture<Void> sent = new CompletableFuture<>();
        channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(message), to)).addListener(write -> {
            if (write.isSuccess()) {
                sent.complete(null);
            } else {
                sent.completeExceptionally(write.cause());
            }
        });
        return sent;
    }

    /** How many sockets share the port. */
    public int sockets() {
        return channels.size();
    }

    /** Whether every socket has its own probe sender (for one socket, once a probe came back). */
    public boolean probesSteered() {
        return steering.steered();
    }

    @Override
    public void close() {
        steering.close();
        meters.forEach(overload::forget);
        for (Channel channel : channels) {
            channel.close().awaitUninterruptibly();
        }
    }
}
