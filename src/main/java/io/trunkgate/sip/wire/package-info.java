/**
 * SIP as the bytes it arrives in, before any stack parses it: {@link io.trunkgate.sip.wire.SipHead} reads a
 * message's start line and the few headers the edge decides on, once; {@link io.trunkgate.sip.wire.SipStreamFramer}
 * cuts a TCP stream into messages; and the stateless answers built from raw header lines: the 503 to a new call
 * {@link io.trunkgate.sip.wire.NewCallTriage} sheds before parsing, and the plain 400 to a request that cannot be
 * parsed ({@link io.trunkgate.sip.wire.BadRequestAnswer}). Nothing here depends on JAIN-SIP.
 */
package io.trunkgate.sip.wire;
