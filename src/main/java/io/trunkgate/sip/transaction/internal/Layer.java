package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.RequestHandler;
import io.trunkgate.sip.transaction.Scheduler;
import io.trunkgate.sip.transaction.StrayResponseHandler;
import io.trunkgate.sip.transaction.TransactionLayer;
import io.trunkgate.sip.transaction.TransactionTimers;
import io.trunkgate.sip.transaction.Wire;
import java.util.function.Function;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** The transaction layer: one table per loop. */
public final class Layer implements TransactionLayer {

    public Layer(Wire wire, Function<String, Scheduler> loopFor, TransactionTimers timers, RequestHandler requests,
                 StrayResponseHandler strays) {
    }

    @Override
    public void received(Request request, Peer source) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public void received(Response response, Peer source) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public ClientTransaction send(Request request, Peer to, ClientListener listener) {
        throw new UnsupportedOperationException("not yet");
    }

    @Override
    public int size() {
        return 0;
    }
}
