/**
 * Guards under the JAIN-SIP transports: TCP connection caps and timeouts, stream framing, answers to messages
 * the stack cannot parse, the per-call queues between the UDP listener and the workers, and the hand-over of
 * responses no transaction knows.
 */
package io.trunkgate.sip.transport;
