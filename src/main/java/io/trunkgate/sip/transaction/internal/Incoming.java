package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.IncomingRequest;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.ResponseRoutes;
import io.trunkgate.sip.transaction.ServerTransaction;
import java.util.Optional;
import javax.sip.message.Request;
import javax.sip.message.Response;

/** A request that matched no transaction, handed to the {@link io.trunkgate.sip.transaction.RequestHandler}. */
final class Incoming implements IncomingRequest {

    private final LoopTable table;
    private final Request request;
    private final Peer source;
    private final Object key;
    /** For a CANCEL, the INVITE server transaction it names, looked up on the loop as it came. */
    private final Optional<ServerTransaction> cancelled;
    private ServerSide transaction;

    Incoming(LoopTable table, Request request, Peer source, Object key, Optional<ServerTransaction> cancelled) {
        this.table = table;
        this.request = request;
        this.source = source;
        this.key = key;
        this.cancelled = cancelled;
    }

    @Override
    public Request request() {
        return request;
    }

    @Override
    public Peer source() {
        return source;
    }

    @Override
    public synchronized ServerTransaction transaction() {
        if (Request.ACK.equals(request.getMethod())) {
            throw new IllegalStateException("an ACK has no transaction of its own");
        }
        if (key == null) {
            throw new IllegalStateException("a request without Via has no transaction");
        }
        if (transaction == null) {
            transaction = Request.INVITE.equals(request.getMethod())
                    ? new InviteServer(table, request, source, key) : new NonInviteServer(table, request, source, key);
            if (table.loop.inLoop()) {
                table.layer.register(table, transaction);
            } else {
                ServerSide taken = transaction;
                table.loop.execute(() -> table.layer.register(table, taken));
            }
        }
        return transaction;
    }

    @Override
    public Optional<ServerTransaction> cancelled() {
        return cancelled;
    }

    @Override
    public void answerStatelessly(Response response) {
        table.layer.sendStatelessly(response, ResponseRoutes.destination(request, source));
    }
}
