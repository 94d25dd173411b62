package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.ClientTransaction;
import javax.sip.message.Response;

/**
 * What a CANCEL's own transaction hears. Nothing of it matters to the call: the INVITE it cancels ends with its
 * final response (a 487), or 64*T1 after the CANCEL without one (RFC 3261 §9.1).
 */
enum CancelOutcome implements ClientListener {
    INSTANCE;

    @Override
    public void provisional(ClientTransaction transaction, Response response) {
    }

    @Override
    public void finalResponse(ClientTransaction transaction, Response response) {
    }

    @Override
    public void timeout(ClientTransaction transaction, ClientTimeout timer) {
        Transaction.log.debug("{} unanswered", transaction);
    }

    @Override
    public void transportError(ClientTransaction transaction, Throwable cause) {
        Transaction.log.debug("{} not sent: {}", transaction, cause.toString());
    }
}
