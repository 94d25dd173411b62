/**
 * Guards under the JAIN-SIP transports: TCP connection caps and timeouts, stream framing, and answers to
 * messages the stack cannot parse.
 */
package io.trunkgate.sip.transport;
