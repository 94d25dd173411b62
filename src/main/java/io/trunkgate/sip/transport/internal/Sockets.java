package io.trunkgate.sip.transport.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

/**
 * Which of Netty's transports the SIP sockets use: epoll, where its native library loads (Linux), for SO_REUSEPORT
 * and one UDP socket per loop; NIO elsewhere. The loops and every channel must be of the same one.
 */
public enum Sockets {
    EPOLL, NIO;

    /** Epoll when it is available here, else NIO. */
    public static Sockets best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    /** Whether several UDP sockets can share a port, one per loop. */
    public boolean reusePort() {
        return this == EPOLL;
    }

    /** A group of {@code threads} loops named {@code name}. */
    public EventLoopGroup group(int threads, String name) {
        DefaultThreadFactory threadFactory = new DefaultThreadFactory(name, true);
        return this == EPOLL ? new EpollEventLoopGroup(threads, threadFactory)
                : new NioEventLoopGroup(threads, threadFactory);
    }

    public Class<? extends DatagramChannel> datagram() {
        return this == EPOLL ? EpollDatagramChannel.class : NioDatagramChannel.class;
    }

    public Class<? extends ServerSocketChannel> server() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public Class<? extends SocketChannel> stream() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }
}
