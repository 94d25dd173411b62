package io.trunkgate.sip.transaction;

import javax.sip.message.Request;

/** Where the transaction layer hands what is not its own to answer. Called on the call's loop. */
public interface RequestHandler {

    /** A request (never an ACK) that matched no transaction: a new one, or a copy of one nobody took. */
    void newRequest(IncomingRequest request);

    /**
     * An ACK no transaction absorbed: one for a 2xx (a transaction of its own, RFC 3261 §17), also when it matched an
     * Accepted INVITE server transaction (RFC 6026 §8.7), or one that matches nothing.
     */
    void ack(Request ack, Peer source);

    /** An INVITE server transaction's non-2xx final response was never acknowledged (Timer H); it is over. */
    void noAck(ServerTransaction transaction);

    /** A response of a server transaction could not be sent; the transaction is over. */
    void transportError(ServerTransaction transaction, Throwable cause);
}
