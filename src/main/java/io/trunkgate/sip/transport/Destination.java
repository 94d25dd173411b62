package io.trunkgate.sip.transport;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a message is sent: a transport and an address, and optionally a {@link Flow} that is preferred while it
 * is open (a request back to a caller on its connection). Without an open flow a TCP or TLS message goes on the
 * connection open to that address (one a peer opened from it, else the one the gateway opened to it), else on a new
 * one; a UDP message leaves from the UDP listener of the address's family.
 */
public record Destination(Transport transport, InetSocketAddress address, Optional<Flow> flow) {

    public Destination {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(flow, "flow");
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("a destination is an IP address, not " + address);
        }
        if (flow.isPresent() && flow.get().transport() != transport) {
            throw new IllegalArgumentException("a " + transport.sipName() + " destination on a "
                    + flow.get().transport().sipName() + " flow");
        }
    }

    /** {@code address} over {@code transport}, with no flow to prefer. */
    public static Destination of(Transport transport, InetSocketAddress address) {
        return new Destination(transport, address, Optional.empty());
    }

    /** Back on {@code flow} while it is open, else to its peer's address over its transport. */
    public static Destination back(Flow flow) {
        return new Destination(flow.transport(), flow.remote(), Optional.of(flow));
    }
}
