package io.trunkgate.sip.transport.internal;

import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.Flow;
import java.net.InetSocketAddress;

/** A TCP or TLS connection as a {@link Flow}: one per connection, kept on its channel. */
public final class ChannelFlow extends Flow {

    private static final AttributeKey<ChannelFlow> KEY = AttributeKey.valueOf(ChannelFlow.class, "flow");

    private final Channel channel;
    private final Transport transport;
    private final InetSocketAddress remote;

    private ChannelFlow(Channel channel, Transport transport, InetSocketAddress remote) {
        this.channel = channel;
        this.transport = transport;
        this.remote = remote;
    }

    /** Makes {@code channel}'s flow, to {@code remote}. */
    public static ChannelFlow attach(Channel channel, Transport transport, InetSocketAddress remote) {
        ChannelFlow flow = new ChannelFlow(channel, transport, remote);
        channel.attr(KEY).set(flow);
        return flow;
    }

    /** The flow of {@code channel}, made by {@link #attach}. */
    public static ChannelFlow of(Channel channel) {
        ChannelFlow flow = channel.attr(KEY).get();
        if (flow == null) {
            throw new IllegalStateException("no flow on " + channel);
        }
        return flow;
    }

    public Channel channel() {
        return channel;
    }

    @Override
    public Transport transport() {
        return transport;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public InetSocketAddress local() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public boolean equals(Object other) {
        return this == other;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(this);
    }
}
