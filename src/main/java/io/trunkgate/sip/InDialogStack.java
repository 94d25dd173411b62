package io.trunkgate.sip;

import javax.sip.address.URI;
import javax.sip.message.Request;

/**
 * The transactions and transports as the {@link InDialogForwarder} reaches them: which addresses are the gateway's
 * own, whether a caller's TCP connection is still open, and sending a relayed request.
 */
interface InDialogStack {

    /** Takes the Route headers that name the gateway off the top of {@code request}. */
    void popOwnRoutes(Request request);

    /** Whether {@code uri} names the gateway itself (one of its listening points). */
    boolean isOwn(URI uri);

    /** Whether the caller's connection {@code flow} is still open. */
    boolean isOpen(Flow flow);

    /** Sends an ACK the forwarder let through, statelessly. */
    void sendAck(InDialogForwarder.Relay relay) throws Exception;

    /** Sends a request the forwarder let through in a client transaction; its responses go to {@code forwarded}. */
    void send(InDialogForwarder.Relay relay, InDialogForwarder.Forwarded forwarded) throws Exception;

    /**
     * Sends a BYE of the gateway's own to one end of the established {@code dialog} ({@code toCallee}), on the
     * caller's connection {@code flow} when not null; false when the dialog has no target for that end.
     */
    boolean sendBye(Dialog dialog, boolean toCallee, Flow flow) throws Exception;
}
