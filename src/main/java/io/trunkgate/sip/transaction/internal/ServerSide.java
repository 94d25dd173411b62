package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.ResponseRoutes;
import io.trunkgate.sip.transaction.ServerTransaction;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** A server transaction: what the INVITE and non-INVITE ones share. */
abstract class ServerSide extends Transaction implements ServerTransaction {

    final Peer source;
    /** Where its responses go (RFC 3261 §18.2.2). */
    final Peer respondTo;
    final Object key;
    /** The last response sent, sent again for each copy of the request. */
    Response last;

    ServerSide(LoopTable table, Request request, Peer source, Object key, TransactionState initial) {
        super(table, request, initial);
        this.source = source;
        this.respondTo = ResponseRoutes.destination(request, source);
        this.key = key;
    }

    /** A copy of the request that made it. */
    abstract void copyReceived();

    /** A response from the transaction's user, on the loop. */
    abstract void respondOnLoop(Response response);

    /** Lets go of the request once the final response is sent, and of that response too once it is not sent again. */
    final void release(boolean lastToo) {
        letGoOfRequest();
        if (lastToo) {
            last = null;
        }
    }

    @Override
    public Peer source() {
        return source;
    }

    @Override
    public TransactionState state() {
        return state;
    }

    @Override
    public void respond(Response response) {
        if (loop.inLoop()) {
            respondOnLoop(response);
        } else {
            loop.execute(() -> respondOnLoop(response));
        }
    }

    /** Sends {@code response} and keeps it to send again. */
    final void sendResponse(Response response) {
        last = response;
        send(response, respondTo);
    }

    /** Sends the last response again, if there is one. */
    final void sendLastAgain() {
        if (last != null) {
            send(last, respondTo);
        }
    }

    @Override
    boolean forget() {
        return table.servers.remove(key, this);
    }

    @Override
    void sendFailed(Throwable cause) {
        if (over() || state == TransactionState.ACCEPTED) {
            return;
        }
        terminate();
        notify("transport error", () -> table.layer.handler.transportError(this, cause));
    }

    @Override
    public String toString() {
        return method() + " server transaction from " + source.address() + " (" + state + ")";
    }
}
