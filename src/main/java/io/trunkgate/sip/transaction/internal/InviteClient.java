package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionState;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * An INVITE client transaction (RFC 3261 §17.1.1, figure 5, with RFC 6026's Accepted state), with a proxy's
 * Timer C (§16.8) and the wait for a final response after a CANCEL (§9.1).
 */
final class InviteClient extends ClientSide {

    /** Timer A: the next copy of the INVITE (over UDP, while Calling), and its interval, doubling each time. */
    private long timerA = NONE;
    private long intervalA;
    /** Timer B: no response at all. */
    private long timerB = NONE;
    /** Timer C: no provisional response (above 100) for so long. */
    private long timerC = NONE;
    /** Timer C's length for this INVITE, in nanoseconds. */
    private final long timerCLength;
    /** Timers D (Completed) and M (Accepted): the end of absorbing copies of the final response. */
    private long lingerEnd = NONE;
    /** 64*T1 after the CANCEL: the end of waiting for the final response. */
    private long cancelEnd = NONE;
    /** The ACK of a non-2xx final response, sent again for each copy of it. */
    private Request ack;
    private boolean cancelAsked;
    private boolean cancelSent;

    InviteClient(LoopTable table, Request request, Peer peer, ClientListener listener, ClientKey key,
                 long timerCLength) {
        super(table, request, peer, listener, key, TransactionState.CALLING);
        this.timerCLength = timerCLength;
    }

    @Override
    public boolean isInvite() {
        return true;
    }

    @Override
    void start() {
        long now = now();
        send(request(), peer);
        if (!peer.reliable()) {
            intervalA = timing.t1;
            timerA = now + intervalA;
        }
        timerB = now + timing.sixtyFourT1;
        timerC = now + timerCLength;
        rearm();
    }

    @Override
    long nextDeadline() {
        return Math.min(Math.min(timerA, timerB), Math.min(timerC, Math.min(lingerEnd, cancelEnd)));
    }

    @Override
    void deadlines(long now) {
        if (timerB <= now) {
            end(ClientTimeout.TIMER_B);
        } else if (cancelEnd <= now) {
            end(ClientTimeout.CANCEL_UNANSWERED);
        } else if (lingerEnd <= now) {
            terminate();
        } else if (timerC <= now) {
            timerC = NONE;
            if (state == TransactionState.CALLING) {
                end(ClientTimeout.TIMER_C); // as if a 408 came (§16.8)
            } else {
                sendCancel();
            }
        } else if (timerA <= now) {
            send(request(), peer);
            intervalA *= 2;
            timerA = nextRetransmission(timerA, intervalA, now);
        }
    }

    private void end(ClientTimeout timer) {
        terminate();
        notify("timeout", () -> listener().timeout(this, timer));
    }

    @Override
    void received(Response response, Peer source) {
        int status = response.getStatusCode();
        switch (state) {
            case CALLING, PROCEEDING -> {
                if (status < 200) {
                    proceeding(status);
                    notify("provisional", () -> listener().provisional(this, response));
                } else if (status < 300) {
                    accepted();
                    notify("final response", () -> listener().finalResponse(this, response));
                    release(true);
                } else {
                    completed(response);
                    notify("final response", () -> listener().finalResponse(this, response));
                    release(false); // a failed send of its ACK still goes to the listener
                    if (peer.reliable()) {
                        terminate(); // Timer D is 0 over a reliable transport
                    }
                }
            }
            case ACCEPTED -> {
                if (status / 100 == 2) {
                    // a copy, or another fork's answer: what the proxy does with it needs no more of the call than
                    // a 2xx after the transaction ended (RFC 3261 §16.7 step 5)
                    table.layer.stray(response, source);
                }
            }
            case COMPLETED -> {
                if (status >= 300) {
                    send(ack, peer); // a copy of the final response: its ACK was lost
                }
            }
            default -> {
            }
        }
    }

    private void proceeding(int status) {
        state = TransactionState.PROCEEDING;
        timerA = NONE;
        timerB = NONE;
        if (status > 100 && !cancelSent) {
            timerC = now() + timerCLength;
        }
        if (cancelAsked && !cancelSent) {
            sendCancel();
        }
        rearm();
    }

    private void accepted() {
        state = TransactionState.ACCEPTED;
        clearWaits();
        lingerEnd = now() + timing.lingering; // Timer M
        rearm();
    }

    private void completed(Response response) {
        state = TransactionState.COMPLETED;
        clearWaits();
        try {
            ack = table.layer.derived.ack(request(), response);
        } catch (Exception e) {
            log.warn("no ACK for a {} to {}: {}", response.getStatusCode(), this, e.toString());
            terminate();
            return;
        }
        send(ack, peer);
        lingerEnd = now() + timing.timerD;
        rearm();
    }

    private void clearWaits() {
        timerA = NONE;
        timerB = NONE;
        timerC = NONE;
        cancelEnd = NONE;
    }

    @Override
    void stopRetransmittingOnLoop() {
        timerA = NONE;
        rearm();
    }

    @Override
    public void cancel() {
        onLoop(() -> {
            if (cancelAsked) {
                return;
            }
            cancelAsked = true;
            if (state == TransactionState.PROCEEDING) {
                sendCancel();
                rearm();
            }
        });
    }

    /** Sends the CANCEL in a transaction of its own and waits 64*T1 more for the INVITE's final response. */
    private void sendCancel() {
        cancelAsked = true;
        cancelSent = true;
        timerC = NONE;
        Request cancel;
        try {
            cancel = table.layer.derived.cancel(request());
        } catch (Exception e) {
            log.warn("no CANCEL for {}: {}", this, e.toString());
            return;
        }
        table.layer.start(table, cancel, peer, CancelOutcome.INSTANCE);
        cancelEnd = now() + timing.sixtyFourT1;
    }
}
