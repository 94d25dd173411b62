package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** A non-INVITE server transaction (RFC 3261 §17.2.2, figure 8). */
final class NonInviteServer extends ServerSide {

    /** Timer J: the end of absorbing copies of the request. */
    private long timerJ = NONE;

    NonInviteServer(LoopTable table, Request request, Peer source, Object key) {
        super(table, request, source, key, TransactionState.TRYING);
    }

    @Override
    public boolean isInvite() {
        return false;
    }

    @Override
    long nextDeadline() {
        return timerJ;
    }

    @Override
    void deadlines(long now) {
        if (timerJ <= now) {
            terminate();
        }
    }

    @Override
    void copyReceived() {
        sendLastAgain(); // Trying has sent nothing yet: the copy is absorbed
    }

    @Override
    void respondOnLoop(Response response) {
        if (state != TransactionState.TRYING && state != TransactionState.PROCEEDING) {
            return;
        }
        if (response.getStatusCode() < 200) {
            state = TransactionState.PROCEEDING;
            sendResponse(response);
            return;
        }
        state = TransactionState.COMPLETED;
        sendResponse(response);
        release(false);
        if (respondTo.reliable()) {
            terminate(); // Timer J is 0 over a reliable transport
        } else {
            timerJ = now() + timing.lingering;
            rearm();
        }
    }
}
