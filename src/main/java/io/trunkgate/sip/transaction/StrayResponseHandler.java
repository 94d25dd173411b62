package io.trunkgate.sip.transaction;

import javax.sip.message.Response;

/** Responses that match no client transaction (RFC 3261 §17.1.3), such as a 2xx retransmitted after its transaction ended. */
@FunctionalInterface
public interface StrayResponseHandler {

    /** Called on the call's loop. */
    void stray(Response response, Peer source);
}
