package io.trunkgate.sip;

import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.sip.transaction.Peer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import javax.sip.address.URI;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;

/**
 * Where the gateway sends a message, as the transaction layer names it: a host name stays unresolved here (no DNS
 * on a SIP loop), for the {@link TransportWire} to resolve off the loop.
 */
final class Peers {

    private Peers() {
    }

    /** A carrier's address, which routing resolved already. */
    static Peer of(CarrierAddress address) {
        return Peer.of(address.transport(), socket(address.ip(), address.port()));
    }

    /** Where a request goes next: its top Route, else its Request-URI (RFC 3261 §16.6 step 6, §8.1.2). */
    static Peer nextHop(Request request) {
        RouteHeader route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        URI next = route != null ? route.getAddress().getURI() : request.getRequestURI();
        Hop hop = Hop.of(next);
        if (hop == null) {
            throw new IllegalArgumentException("no SIP URI to send to: " + next);
        }
        return Peer.of(Transport.parse(InDialogForwarder.transportOf(next)), socket(hop.host(), hop.port()));
    }

    /** {@code host}:{@code port}, resolved when {@code host} is an IP literal (no lookup), else unresolved. */
    static InetSocketAddress socket(String host, int port) {
        InetAddress literal = Hop.of(host, port).address();
        return literal != null ? new InetSocketAddress(literal, port) : InetSocketAddress.createUnresolved(host, port);
    }
}
