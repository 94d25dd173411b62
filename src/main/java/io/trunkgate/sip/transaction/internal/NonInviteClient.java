package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** A non-INVITE client transaction (RFC 3261 §17.1.2, figure 6). */
final class NonInviteClient extends ClientSide {

    /** Timer E: the next copy of the request (over UDP), and its interval, doubling up to T2. */
    private long timerE = NONE;
    private long intervalE;
    /** Timer F: no final response. */
    private long timerF = NONE;
    /** Timer K: the end of absorbing copies of the final response. */
    private long timerK = NONE;

    NonInviteClient(LoopTable table, Request request, Peer peer, ClientListener listener, ClientKey key) {
        super(table, request, peer, listener, key, TransactionState.TRYING);
    }

    @Override
    public boolean isInvite() {
        return false;
    }

    @Override
    void start() {
        long now = now();
        send(request(), peer);
        if (!peer.reliable()) {
            intervalE = timing.t1;
            timerE = now + intervalE;
        }
        timerF = now + timing.sixtyFourT1;
        rearm();
    }

    @Override
    long nextDeadline() {
        return Math.min(timerE, Math.min(timerF, timerK));
    }

    @Override
    void deadlines(long now) {
        if (timerF <= now) {
            terminate();
            notify("timeout", () -> listener().timeout(this, ClientTimeout.TIMER_F));
        } else if (timerK <= now) {
            terminate();
        } else if (timerE <= now) {
            send(request(), peer);
            intervalE = state == TransactionState.PROCEEDING ? timing.t2 : Math.min(2 * intervalE, timing.t2);
            timerE = nextRetransmission(timerE, intervalE, now);
        }
    }

    @Override
    void received(Response response, Peer source) {
        if (state != TransactionState.TRYING && state != TransactionState.PROCEEDING) {
            return; // Completed: a copy of the final response, absorbed
        }
        if (response.getStatusCode() < 200) {
            state = TransactionState.PROCEEDING;
            notify("provisional", () -> listener().provisional(this, response));
            return;
        }
        state = TransactionState.COMPLETED;
        timerE = NONE;
        timerF = NONE;
        notify("final response", () -> listener().finalResponse(this, response));
        release(true); // Completed sends nothing: no transport error can follow
        if (peer.reliable()) {
            terminate(); // Timer K is 0 over a reliable transport
        } else {
            timerK = now() + timing.t4;
            rearm();
        }
    }

    @Override
    void stopRetransmittingOnLoop() {
        timerE = NONE;
        rearm();
    }

    @Override
    public void cancel() {
        throw new IllegalStateException("only an INVITE is cancelled, not a " + method());
    }
}
