package io.trunkgate.sip.transaction;

import java.util.concurrent.CompletionStage;
import javax.sip.message.Message;

/**
 * How the transaction layer sends: the gateway's transports, serialising the message. Called on the call's
 * loop; it must not block it.
 */
@FunctionalInterface
public interface Wire {

    /**
     * Sends {@code message} to {@code to} (on {@code to}'s flow while it is open). The stage fails when the
     * message could not be sent: a connect refused, a handshake failed, a host that does not resolve; a client
     * transaction whose send fails ends with {@link ClientListener#transportError}.
     */
    CompletionStage<Void> send(Message message, Peer to);
}
