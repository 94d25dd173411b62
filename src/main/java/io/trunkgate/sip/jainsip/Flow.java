package io.trunkgate.sip.jainsip;

import java.net.InetSocketAddress;

/**
 * A TCP or TLS connection a peer opened to the gateway, named by the peer's end of it and its transport. Put on a request as its application
 * data ({@code MessageExt.setApplicationData}), it makes {@link FlowRouter} send the request back on that
 * connection while it is open: a caller behind NAT can be reached only there, its Contact is not reachable.
 */
public record Flow(InetSocketAddress remote, String transport) {
}
