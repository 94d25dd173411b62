package io.trunkgate.sip.transaction;

import io.trunkgate.sip.transaction.internal.Layer;
import java.time.Duration;
import java.util.function.Function;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * The gateway's transactions, each on the loop of its Call-ID. Every method may be called from any thread: one
 * called off that loop goes on there (a message is received, a request sent, in the order the calls came).
 */
public interface TransactionLayer {

    /**
     * Makes a transaction layer.
     *
     * @param wire      how messages are sent
     * @param loopFor   the loop a Call-ID's transactions live on; the same {@link Scheduler} for the same loop
     * @param timers    T1, T2, T4, Timer C and how long finished transactions linger
     * @param requests  where requests that match no transaction go
     * @param strays    where responses that match no transaction go
     */
    static TransactionLayer create(Wire wire, Function<String, Scheduler> loopFor, TransactionTimers timers,
                                   RequestHandler requests, StrayResponseHandler strays) {
        return new Layer(wire, loopFor, timers, requests, strays);
    }

    /**
     * A request as received from {@code source}: its top Via gets {@code received} and {@code rport} as RFC 3261
     * §18.2.1 and RFC 3581 say; a copy of a request a transaction has is absorbed by it, an ACK of a non-2xx final
     * response ends its wait; anything else goes to the {@link RequestHandler}.
     */
    void received(Request request, Peer source);

    /** A response as received from {@code source}: to its client transaction, else to the {@link StrayResponseHandler}. */
    void received(Response response, Peer source);

    /**
     * Sends {@code request} (not an ACK, which has no transaction) to {@code to} in a new client transaction whose
     * responses go to {@code listener}. Its top Via must carry a branch of its own, with RFC 3261's magic cookie.
     * The CANCEL of an INVITE sent here is {@link ClientTransaction#cancel}'s, which also bounds the INVITE's wait.
     *
     * @throws IllegalArgumentException for an ACK, or a request without such a branch
     */
    ClientTransaction send(Request request, Peer to, ClientListener listener);

    /**
     * As {@link #send(Request, Peer, ClientListener)}, for an INVITE whose Timer C is at least {@code timerC}: the
     * layer's Timer C, RFC 3261's 3 minutes, is the least a proxy may wait (§16.8), and a proxy whose own timers of a
     * call are longer waits longer. Ignored for other requests.
     */
    ClientTransaction send(Request request, Peer to, ClientListener listener, Duration timerC);

    /** The transactions kept now, running or lingering to absorb copies. */
    int size();
}
