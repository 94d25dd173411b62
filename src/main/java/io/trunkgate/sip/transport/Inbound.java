package io.trunkgate.sip.transport;

/** Where the transports deliver what they received and did not deal with themselves (the SIP proxy). */
@FunctionalInterface
public interface Inbound {

    /**
     * A message received, called on its call's loop ({@link SipTransports#loopFor} of its Call-ID; a message
     * without one on the loop of its source address): every message of a call arrives here on one thread, in the
     * order it was received on its socket or connection. Must not block.
     */
    void received(InboundMessage message);
}
