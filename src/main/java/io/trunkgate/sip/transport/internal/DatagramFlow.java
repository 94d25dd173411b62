package io.trunkgate.sip.transport.internal;

import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.Flow;
import java.net.InetSocketAddress;

/** A UDP peer as a {@link Flow}: the listener its datagrams arrive at, and its address. */
public final class DatagramFlow extends Flow {

    private final UdpListener listener;
    private final InetSocketAddress remote;

    DatagramFlow(UdpListener listener, InetSocketAddress remote) {
        this.listener = listener;
        this.remote = remote;
    }

    public UdpListener listener() {
        return listener;
    }

    @Override
    public Transport transport() {
        return Transport.UDP;
    }

    @Override
    public InetSocketAddress remote() {
        return remote;
    }

    @Override
    public InetSocketAddress local() {
        return listener.localAddress();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DatagramFlow flow && flow.listener == listener && flow.remote.equals(remote);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(listener) * 31 + remote.hashCode();
    }
}
