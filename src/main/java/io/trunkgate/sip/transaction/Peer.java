package io.trunkgate.sip.transaction;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * The other end of one hop: where a message came from or goes to.
 *
 * @param transport how it travels
 * @param address   the peer's address and port; unresolved when a Via named a host the layer does not resolve
 *                  (the {@link Wire} resolves it, off the call's loop)
 * @param flow      the connection it came on or should go back on while open (the transport's own handle,
 *                  carried here and never read), or null for none
 */
public record Peer(Transport transport, InetSocketAddress address, Object flow) {

    public Peer {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(address, "address");
    }

    /** A peer reached by address alone, on no particular connection. */
    public static Peer of(Transport transport, InetSocketAddress address) {
        return new Peer(transport, address, null);
    }

    /** Whether the transport delivers reliably (TCP, TLS): no retransmissions, and no waits to absorb copies. */
    public boolean reliable() {
        return transport != Transport.UDP;
    }
}
