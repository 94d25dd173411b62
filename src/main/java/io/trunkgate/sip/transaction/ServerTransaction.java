package io.trunkgate.sip.transaction;

import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * A request the gateway received and answers (RFC 3261 §17.2): copies of the request are absorbed, each answered
 * with the last response sent. Taken by the {@link RequestHandler} through {@link IncomingRequest#transaction()}.
 * Its methods may be called from any thread: they take effect on the call's loop.
 */
public interface ServerTransaction {

    /**
     * The request that made it, while the transaction may still answer it: once it is Accepted (a 2xx sent to an
     * INVITE) or Confirmed (the ACK of a failure came), it lets go of it, as it only absorbs copies from there on.
     *
     * @throws IllegalStateException once let go
     */
    Request request();

    /** The request's method, kept for the transaction's life. */
    String method();

    /** Where the request came from. */
    Peer source();

    boolean isInvite();

    /** Its state now (read on the call's loop for an exact answer). */
    TransactionState state();

    /**
     * Sends a response to the request, back where it came from (RFC 3261 §18.2.2) and as the state machine lets
     * it: a provisional one before the final, one final response (further 2xx to an INVITE too, while it is
     * Accepted). A 2xx to an INVITE after the transaction ended is still sent, statelessly, to the same place (a
     * proxy relays every 2xx, §16.7 step 5); any other response then is dropped.
     */
    void respond(Response response);
}
