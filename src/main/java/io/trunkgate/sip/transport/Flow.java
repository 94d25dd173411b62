package io.trunkgate.sip.transport;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;

/**
 * The way back to a peer that sent the gateway something: the TCP or TLS connection it opened (a caller behind a
 * NAT can be reached only there; its Contact is not reachable), or for UDP the listener socket its datagram
 * arrived at, with its address. Opaque: the transports made it and know what it stands for. Two flows are equal
 * when they are the same connection (for UDP, the same listener and peer). {@link SipTransports#isOpen} says
 * whether it can still be sent on.
 */
public abstract class Flow {

    /** Only the transports make flows. */
    protected Flow() {
    }

    /** UDP, TCP or TLS. */
    public abstract Transport transport();

    /** The peer's end. */
    public abstract InetSocketAddress remote();

    /** The gateway's end. */
    public abstract InetSocketAddress local();

    @Override
    public String toString() {
        return transport().sipName() + " " + local() + " <-> " + remote();
    }
}
