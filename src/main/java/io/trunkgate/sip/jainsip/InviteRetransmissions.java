package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.SIPTransactionImpl;
import javax.sip.ClientTransaction;
import javax.sip.header.CallIdHeader;

/**
 * Stops the copies of an INVITE that a client transaction sends over UDP until a response comes (RFC 3261
 * §17.1.1.2, Timer A) and keeps the rest of the transaction: it still takes the carrier's responses (a late
 * provisional, a 2xx, a 487 it ACKs) and ends at Timer B. JAIN-SIP has no call for this in the {@code javax.sip}
 * API ({@link javax.sip.Transaction#terminate} also drops the responses), so this reaches JAIN-SIP 1.3.0-91's
 * public {@link SIPTransactionImpl#disableRetransmissionTimer}.
 */
public final class InviteRetransmissions {

    private InviteRetransmissions() {
    }

    /** No further copy of {@code transaction}'s INVITE is sent. */
    public static void stop(ClientTransaction transaction) {
        if (!(transaction instanceof SIPTransactionImpl sip)) {
            return;
        }
        sip.disableRetransmissionTimer();
        // The stack's timer thread counts the retransmission down and re-arms it in a read-modify-write of the
        // same field, without a lock, so a write from this thread can be lost in between. Written again on that
        // (single) thread, after any count-down under way, it holds. Its thread key is the transaction's own
        // timer task's: the Call-ID.
        String callId = ((CallIdHeader) transaction.getRequest().getHeader(CallIdHeader.NAME)).getCallId();
        try {
            sip.getSIPStack().getTimer().schedule(new SIPStackTimerTask() {
                @Override
                public void runTask() {
                    sip.disableRetransmissionTimer();
                }

                @Override
                public Object getThreadHash() {
                    return callId;
                }
            }, 0);
        } catch (IllegalStateException stopped) {
            // the stack's timer is stopped: it runs no retransmission either
        }
    }
}
