package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** A client transaction: what the INVITE and non-INVITE ones share. */
abstract class ClientSide extends Transaction implements ClientTransaction {

    /** Let go once the final response has been handed on, when nothing more goes to it ({@link #release}). */
    private ClientListener listener;
    final Peer peer;
    final ClientKey key;

    ClientSide(LoopTable table, Request request, Peer peer, ClientListener listener, ClientKey key,
               TransactionState initial) {
        super(table, request, initial);
        this.peer = peer;
        this.listener = listener;
        this.key = key;
    }

    /** Sends the request and arms the first timers; the transaction is in its table. */
    abstract void start();

    /** A response that matched this transaction. */
    abstract void received(Response response, Peer source);

    /** Stops the retransmission timer (A or E). */
    abstract void stopRetransmittingOnLoop();

    final ClientListener listener() {
        return listener;
    }

    /**
     * Lets go of the request, and of the listener (the call behind it) too when nothing more goes to it, once the
     * final response has been handed on.
     */
    final void release(boolean listenerToo) {
        letGoOfRequest();
        if (listenerToo) {
            listener = null;
        }
    }

    @Override
    public Peer peer() {
        return peer;
    }

    @Override
    public TransactionState state() {
        return state;
    }

    @Override
    boolean forget() {
        return table.clients.remove(key, this);
    }

    @Override
    public void stopRetransmitting() {
        onLoop(this::stopRetransmittingOnLoop);
    }

    @Override
    public boolean abandon() {
        boolean waiting = waiting();
        onLoop(() -> {
            if (waiting()) {
                terminate();
            }
        });
        return waiting;
    }

    private boolean waiting() {
        TransactionState now = state;
        return now == TransactionState.CALLING || now == TransactionState.TRYING
                || now == TransactionState.PROCEEDING;
    }

    /** Runs {@code action} now when on the loop, else on the loop, later. */
    final void onLoop(Runnable action) {
        if (loop.inLoop()) {
            action.run();
        } else {
            loop.execute(action);
        }
    }

    @Override
    void sendFailed(Throwable cause) {
        if (over() || state == TransactionState.ACCEPTED || (!isInvite() && state == TransactionState.COMPLETED)) {
            return; // nothing is sent in these states: the failure is of a send the response made moot
        }
        terminate();
        notify("transport error", () -> listener.transportError(this, cause));
    }

    @Override
    public String toString() {
        return method() + " client transaction " + key.branch() + " to " + peer.address() + " ("
                + state + ")";
    }
}
