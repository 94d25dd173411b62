package io.trunkgate.sip.transaction;

import java.util.Optional;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * A request that matched no transaction, as the {@link RequestHandler} gets it: answered statelessly (a refusal
 * keeps no state and is not retransmitted) or through the server transaction it takes.
 */
public interface IncomingRequest {

    Request request();

    /** Where it came from. */
    Peer source();

    /**
     * The request's server transaction, made on the first call (the same one on later calls): from then on copies
     * of the request are absorbed by it, not handed to the {@link RequestHandler}. Taken on another thread than the
     * call's loop, it is in the layer's table once the loop gets to it; a copy received before that goes to the
     * handler again.
     *
     * @throws IllegalStateException for an ACK, which has no transaction of its own
     */
    ServerTransaction transaction();

    /**
     * For a CANCEL, the INVITE server transaction it names (RFC 3261 §9.2: matched as §17.2.3 says, but for the
     * method), if the layer has it; empty for any other request.
     */
    Optional<ServerTransaction> cancelled();

    /** Sends {@code response} where a response to this request goes (RFC 3261 §18.2.2), outside any transaction. */
    void answerStatelessly(Response response);
}
