package io.trunkgate.sip.transaction;

import javax.sip.message.Request;

/**
 * A request the gateway sends and the responses it gets (RFC 3261 §17.1). Its {@link ClientListener} hears of
 * them on the call's loop. Its methods may be called from any thread: they take effect on the call's loop.
 */
public interface ClientTransaction {

    /**
     * The request as sent (an INVITE for an INVITE transaction), until the final response has been handed to the
     * listener: then the transaction lets go of it (and of the listener), as it only absorbs copies from there on.
     *
     * @throws IllegalStateException after the final response was handed on
     */
    Request request();

    /** The request's method, kept for the transaction's life. */
    String method();

    /** Where it was sent. */
    Peer peer();

    boolean isInvite();

    /** Its state now (read on the call's loop for an exact answer). */
    TransactionState state();

    /**
     * The peer gets no further copy of the request (Timer A or E stops); the transaction still takes its
     * responses and still times out (Timer B or F).
     */
    void stopRetransmitting();

    /**
     * Ends the transaction if it still waits for a final response: it is forgotten, no listener hears of it
     * again, and a response that comes later is a stray. Returns whether it was waiting. On the call's loop the
     * answer is exact; called from another thread, it is the state when called, and the transaction ends on its
     * loop if it is waiting still.
     */
    boolean abandon();

    /**
     * Cancels an INVITE (RFC 3261 §9.1): sends a CANCEL for it to where it went, once it has had a provisional
     * response (at once if it has); if no final response comes within 64*T1 after the CANCEL, the transaction
     * ends with {@link ClientTimeout#CANCEL_UNANSWERED}. Nothing happens once it has a final response, or
     * a second time.
     *
     * @throws IllegalStateException for a non-INVITE transaction
     */
    void cancel();
}
