package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** An INVITE server transaction (RFC 3261 §17.2.1, figure 7, with RFC 6026's Accepted state). */
final class InviteServer extends ServerSide {

    /** Timer G: the next copy of a non-2xx final response (over UDP), and its interval, doubling up to T2. */
    private long timerG = NONE;
    private long intervalG;
    /** Timer H: no ACK for the non-2xx final response. */
    private long timerH = NONE;
    /** Timers I (Confirmed) and L (Accepted): the end of absorbing copies of the ACK or the INVITE. */
    private long lingerEnd = NONE;
    /** The To tag of the final response, which the ACK of an RFC 2543 caller must carry to match. */
    private String finalToTag;

    InviteServer(LoopTable table, Request request, Peer source, Object key) {
        super(table, request, source, key, TransactionState.PROCEEDING);
    }

    @Override
    public boolean isInvite() {
        return true;
    }

    @Override
    long nextDeadline() {
        return Math.min(timerG, Math.min(timerH, lingerEnd));
    }

    @Override
    void deadlines(long now) {
        if (timerH <= now) {
            terminate();
            notify("no ACK", () -> table.layer.handler.noAck(this));
        } else if (lingerEnd <= now) {
            terminate();
        } else if (timerG <= now) {
            sendLastAgain();
            intervalG = Math.min(2 * intervalG, timing.t2);
            timerG = nextRetransmission(timerG, intervalG, now);
        }
    }

    @Override
    void copyReceived() {
        if (state == TransactionState.PROCEEDING || state == TransactionState.COMPLETED) {
            sendLastAgain();
        } // Confirmed and Accepted absorb it
    }

    String finalToTag() {
        return finalToTag;
    }

    /** An ACK that matched this transaction. */
    void ackReceived(Request ack, Peer from) {
        switch (state) {
            case COMPLETED -> {
                state = TransactionState.CONFIRMED;
                timerG = NONE;
                timerH = NONE;
                release(true);
                if (respondTo.reliable()) {
                    terminate(); // Timer I is 0 over a reliable transport
                } else {
                    lingerEnd = now() + timing.t4;
                    rearm();
                }
            }
            case ACCEPTED -> notify("ACK", () -> table.layer.handler.ack(ack, from));
            default -> {
            } // Confirmed: a copy, absorbed; Proceeding: nothing to acknowledge yet
        }
    }

    @Override
    void respondOnLoop(Response response) {
        int status = response.getStatusCode();
        switch (state) {
            case PROCEEDING -> {
                if (status < 200) {
                    sendResponse(response);
                } else if (status < 300) {
                    state = TransactionState.ACCEPTED;
                    finalToTag = ServerKeys.toTag(response);
                    sendResponse(response);
                    release(true); // further 2xx come from the call, not from here
                    lingerEnd = now() + timing.lingering; // Timer L
                    rearm();
                } else {
                    state = TransactionState.COMPLETED;
                    finalToTag = ServerKeys.toTag(response);
                    sendResponse(response);
                    release(false);
                    long now = now();
                    if (!respondTo.reliable()) {
                        intervalG = timing.t1;
                        timerG = now + intervalG;
                    }
                    timerH = now + timing.sixtyFourT1;
                    rearm();
                }
            }
            case ACCEPTED -> {
                if (status / 100 == 2) {
                    send(response, respondTo);
                }
            }
            case TERMINATED -> {
                if (status / 100 == 2) {
                    // a proxy relays every 2xx (§16.7 step 5), also after the transaction: outside it
                    table.layer.sendStatelessly(response, respondTo);
                }
            }
            default -> {
            }
        }
    }
}
