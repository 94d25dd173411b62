package io.trunkgate.sip.transport;

import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.wire.SipHead;
import java.net.InetSocketAddress;
import java.util.Optional;

/**
 * One SIP message as it arrived, before any parse beyond its head.
 *
 * @param bytes         the whole message, start line to end of body
 * @param head          what was read of it to frame, shed and dispatch it (over {@code bytes})
 * @param remote        who sent it: the datagram's source, or the far end of the connection
 * @param local         where it arrived: the listener's socket address, or the near end of the connection
 * @param transport     UDP, TCP or TLS
 * @param flow          the socket or connection it came on, to send back on while it is open (RFC 5923, RFC 5626);
 *                      for UDP, the listener socket it arrived at, so that answers leave from the address the
 *                      sender wrote to
 * @param certificate   the client certificate the caller presented on its TLS connection, if any
 * @param receivedNanos when it was read ({@link System#nanoTime()})
 */
public record InboundMessage(byte[] bytes, SipHead head, InetSocketAddress remote, InetSocketAddress local,
                             Transport transport, Optional<Flow> flow, Optional<PresentedCertificate> certificate,
                             long receivedNanos) {
}
