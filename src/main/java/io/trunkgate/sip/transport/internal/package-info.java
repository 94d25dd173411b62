/**
 * The channel handlers and socket plumbing behind {@link io.trunkgate.sip.transport.SipTransports}: each handler
 * does one job (decode a datagram, frame a stream, cap connections, time out idle or incomplete ones, shed new
 * calls, hand a message to its call's loop, log what fails) and is tested on its own with an
 * {@code EmbeddedChannel}.
 */
package io.trunkgate.sip.transport.internal;
