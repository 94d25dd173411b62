package io.trunkgate.sip;

import java.net.InetSocketAddress;

/**
 * A TCP or TLS connection a caller opened to the gateway, as its dialog names it: the caller's end and the
 * transport. A request towards the caller goes back on it while it is open (RFC 5923, RFC 5626): behind a NAT the
 * caller's Contact is not reachable.
 */
record Flow(InetSocketAddress remote, String transport) {
}
