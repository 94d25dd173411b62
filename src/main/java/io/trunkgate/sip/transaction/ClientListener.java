package io.trunkgate.sip.transaction;

import javax.sip.message.Response;

/**
 * What a client transaction tells the one that sent its request, always on the call's loop, never from within
 * {@link TransactionLayer#send}. After {@link #timeout} or {@link #transportError} nothing more comes.
 */
public interface ClientListener {

    /** A provisional response (1xx). */
    void provisional(ClientTransaction transaction, Response response);

    /**
     * A final response: the first one, and for an INVITE each further 2xx while it is Accepted (a fork's, or a
     * retransmission; RFC 6026). Copies of a non-2xx final response are absorbed (and ACKed) and not passed on.
     */
    void finalResponse(ClientTransaction transaction, Response response);

    /** No final response came in time (which timer says); the transaction is over. */
    void timeout(ClientTransaction transaction, ClientTimeout timer);

    /** The request, a copy of it, or the ACK of a final response could not be sent; the transaction is over. */
    void transportError(ClientTransaction transaction, Throwable cause);
}
