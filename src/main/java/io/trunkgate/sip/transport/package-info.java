/**
 * The gateway's SIP sockets on Netty: UDP, TCP and TLS listeners over IPv4 and IPv6, and the connections to
 * carriers, all on one event loop group that {@link io.trunkgate.sip.transport.SipTransports} owns. Every message
 * of a Call-ID is handled on one loop of that group ({@link io.trunkgate.sip.transport.SipTransports#loopFor}):
 * a received message is framed, its head read once ({@link io.trunkgate.sip.wire.SipHead}), new calls the
 * {@link io.trunkgate.sip.wire.NewCallTriage} sheds are answered on the socket's loop, and everything else is
 * handed once to its call's loop and delivered there to the {@link io.trunkgate.sip.transport.Inbound}. Sending
 * reuses one connection per carrier address, or goes back on the connection a caller opened
 * ({@link io.trunkgate.sip.transport.Flow}). Nothing here parses SIP beyond the head, nor knows JAIN-SIP or
 * transactions; the channel handlers, one job each, are in {@code internal}.
 */
package io.trunkgate.sip.transport;
