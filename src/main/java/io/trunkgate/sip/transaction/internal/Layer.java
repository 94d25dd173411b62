package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.RequestHandler;
import io.trunkgate.sip.transaction.ResponseRoutes;
import io.trunkgate.sip.transaction.Scheduler;
import io.trunkgate.sip.transaction.ServerTransaction;
import io.trunkgate.sip.transaction.StrayResponseHandler;
import io.trunkgate.sip.transaction.TransactionLayer;
import io.trunkgate.sip.transaction.TransactionTimers;
import io.trunkgate.sip.transaction.Wire;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The transaction layer: a table per loop, each touched only on its loop. */
public final class Layer implements TransactionLayer {

    private static final Logger log = LoggerFactory.getLogger(Layer.class);

    final Wire wire;
    final Timing timing;
    final RequestHandler handler;
    final DerivedRequests derived = new DerivedRequests();
    private final StrayResponseHandler strays;
    private final Function<String, Scheduler> loopFor;
    private final Map<Scheduler, LoopTable> tables = new ConcurrentHashMap<>();
    private final LongAdder size = new LongAdder();

    public Layer(Wire wire, Function<String, Scheduler> loopFor, TransactionTimers timers, RequestHandler handler,
                 StrayResponseHandler strays) {
        this.wire = wire;
        this.loopFor = loopFor;
        this.timing = new Timing(timers);
        this.handler = handler;
        this.strays = strays;
    }

    @Override
    public void received(Request request, Peer source) {
        LoopTable table = tableOf(request);
        if (table.loop.inLoop()) {
            receivedOnLoop(table, request, source);
        } else {
            table.loop.execute(() -> receivedOnLoop(table, request, source));
        }
    }

    private void receivedOnLoop(LoopTable table, Request request, Peer source) {
        try {
            ResponseRoutes.stamp(request, source.address());
        } catch (IllegalArgumentException e) {
            log.debug("{}", e.getMessage());
        }
        if (Request.ACK.equals(request.getMethod())) {
            Optional<InviteServer> invite = ackedInvite(table, request);
            if (invite.isPresent()) {
                invite.get().ackReceived(request, source);
            } else {
                Transaction.notify("ACK", () -> handler.ack(request, source));
            }
            return;
        }
        Object key = ServerKeys.of(request);
        ServerSide existing = key == null ? null : table.servers.get(key);
        if (existing != null) {
            existing.copyReceived();
            return;
        }
        Optional<ServerTransaction> cancelled = Request.CANCEL.equals(request.getMethod())
                ? inviteServer(table, ServerKeys.invite(request, ServerKeys.toTag(request))).map(s -> s)
                : Optional.empty();
        Incoming incoming = new Incoming(table, request, source, key, cancelled);
        Transaction.notify("request", () -> handler.newRequest(incoming));
    }

    /**
     * The INVITE server transaction an ACK acknowledges: the one with its branch; for an RFC 2543 ACK, the one whose
     * final response carried the ACK's To tag (the INVITE had no To tag, or that one, in a re-INVITE).
     */
    private static Optional<InviteServer> ackedInvite(LoopTable table, Request ack) {
        String toTag = ServerKeys.toTag(ack);
        Object key = ServerKeys.invite(ack, toTag);
        if (key instanceof ServerKeys.Branch) {
            return inviteServer(table, key);
        }
        Optional<InviteServer> found = inviteServer(table, key);
        if (found.isEmpty() && toTag != null) {
            found = inviteServer(table, ServerKeys.invite(ack, null));
        }
        return found.filter(invite -> toTag != null && toTag.equals(invite.finalToTag()));
    }

    private static Optional<InviteServer> inviteServer(LoopTable table, Object key) {
        return key != null && table.servers.get(key) instanceof InviteServer invite
                ? Optional.of(invite) : Optional.empty();
    }

    @Override
    public void received(Response response, Peer source) {
        LoopTable table = tableOf(response);
        if (table.loop.inLoop()) {
            receivedOnLoop(table, response, source);
        } else {
            table.loop.execute(() -> receivedOnLoop(table, response, source));
        }
    }

    private void receivedOnLoop(LoopTable table, Response response, Peer source) {
        ClientKey key = ClientKey.of(response);
        ClientSide client = key == null ? null : table.clients.get(key);
        if (client != null) {
            client.received(response, source);
        } else {
            stray(response, source);
        }
    }

    /** A response no transaction takes further, to the stray handler. */
    void stray(Response response, Peer source) {
        Transaction.notify("stray response", () -> strays.stray(response, source));
    }

    @Override
    public ClientTransaction send(Request request, Peer to, ClientListener listener) {
        return send(request, to, listener, Duration.ZERO);
    }

    @Override
    public ClientTransaction send(Request request, Peer to, ClientListener listener, Duration timerC) {
        if (Request.ACK.equals(request.getMethod())) {
            throw new IllegalArgumentException("an ACK has no transaction: send it through the wire");
        }
        ClientKey key = ClientKey.of(request);
        if (key == null || !key.branch().startsWith("z9hg4bk")) {
            throw new IllegalArgumentException("a request sent in a transaction needs a top Via with a branch of its"
                    + " own, starting z9hG4bK");
        }
        LoopTable table = tableOf(request);
        ClientSide client = client(table, request, to, listener, key, Math.max(timing.timerC, timerC.toNanos()));
        if (table.loop.inLoop()) {
            start(table, client);
        } else {
            table.loop.execute(() -> start(table, client));
        }
        return client;
    }

    /** Sends a request the layer made itself (a CANCEL) in a client transaction, on the loop. */
    void start(LoopTable table, Request request, Peer to, ClientListener listener) {
        start(table, client(table, request, to, listener, ClientKey.of(request), timing.timerC));
    }

    private static ClientSide client(LoopTable table, Request request, Peer to, ClientListener listener,
                                     ClientKey key, long timerC) {
        return Request.INVITE.equals(request.getMethod()) ? new InviteClient(table, request, to, listener, key, timerC)
                : new NonInviteClient(table, request, to, listener, key);
    }

    private void start(LoopTable table, ClientSide client) {
        ClientSide before = table.clients.put(client.key, client);
        if (before != null) {
            before.terminate(); // a branch used twice: the newer request's responses are its own
        } else {
            size.increment();
        }
        client.start();
    }

    /** Puts a server transaction the handler took in its table, unless a copy's is there already. */
    void register(LoopTable table, ServerSide server) {
        if (table.servers.putIfAbsent(server.key, server) == null) {
            size.increment();
        }
    }

    void removed() {
        size.decrement();
    }

    /** Sends a message outside any transaction; a failure is only logged. */
    void sendStatelessly(Message message, Peer to) {
        try {
            wire.send(message, to).whenComplete((done, failure) -> {
                if (failure != null) {
                    log.debug("not sent to {}: {}", to.address(), failure.toString());
                }
            });
        } catch (RuntimeException e) {
            log.debug("not sent to {}: {}", to.address(), e.toString());
        }
    }

    @Override
    public int size() {
        return size.intValue();
    }

    private LoopTable tableOf(Message message) {
        CallIdHeader callId = (CallIdHeader) message.getHeader(CallIdHeader.NAME);
        Scheduler loop = loopFor.apply(callId == null ? "" : callId.getCallId());
        return tables.computeIfAbsent(loop, scheduler -> new LoopTable(this, scheduler));
    }
}
