package io.trunkgate.sip;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.ClientTransaction;
import javax.sip.message.Response;

/** The listener of a request of the gateway's own whose answers nobody waits for (a BYE that closes a leg). */
enum Absorbed implements ClientListener {
    ANSWERS;

    @Override
    public void provisional(ClientTransaction transaction, Response response) {
    }

    @Override
    public void finalResponse(ClientTransaction transaction, Response response) {
    }

    @Override
    public void timeout(ClientTransaction transaction, ClientTimeout timer) {
    }

    @Override
    public void transportError(ClientTransaction transaction, Throwable cause) {
    }
}
