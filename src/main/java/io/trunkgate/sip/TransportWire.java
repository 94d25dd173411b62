package io.trunkgate.sip;

import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.Wire;
import io.trunkgate.sip.transport.Destination;
import io.trunkgate.sip.transport.Flow;
import io.trunkgate.sip.transport.SipTransports;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import javax.sip.message.Message;

/**
 * The transaction layer's {@link Wire} on the gateway's transports: each message is encoded by the message model
 * and sent to its peer, on the peer's connection while it is open. A peer named by a host name (a Contact, a Route
 * or a Via that names one) is resolved on {@code resolving}, never on a SIP loop; while such a send of a call waits
 * for its address, the call's later sends wait behind it, so a call's messages leave in the order they were sent.
 */
final class TransportWire implements Wire {

    private final SipTransports transports;
    private final Executor resolving;
    /** Per Call-ID, the last send still waiting for a host name's address, which the call's next sends follow. */
    private final ConcurrentMap<String, CompletableFuture<Void>> waiting = new ConcurrentHashMap<>();

    TransportWire(SipTransports transports, Executor resolving) {
        this.transports = transports;
        this.resolving = resolving;
    }

    @Override
    public CompletionStage<Void> send(Message message, Peer to) {
        byte[] bytes;
        try {
            bytes = JainSip.encode(message, to.transport().name());
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        String callId = SipMessages.callId(message);
        String key = callId == null ? "" : callId;
        CompletableFuture<Void> before = waiting.get(key);
        if (before == null && !to.address().isUnresolved()) {
            return transports.send(destination(to, to.address()), bytes);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        waiting.put(key, done);
        CompletableFuture<Void> after = before == null ? CompletableFuture.completedFuture(null)
                : before.handle((ignored, error) -> null);
        after.thenApplyAsync(ignored -> address(to.address()), resolving)
                .thenCompose(address -> transports.send(destination(to, address), bytes))
                .whenComplete((ignored, error) -> {
                    waiting.remove(key, done);
                    if (error != null) {
                        done.completeExceptionally(error instanceof CompletionException ? error.getCause() : error);
                    } else {
                        done.complete(null);
                    }
                });
        return done;
    }

    private static Destination destination(Peer to, InetSocketAddress address) {
        Optional<Flow> flow = to.flow() instanceof Flow open && open.transport() == to.transport()
                ? Optional.of(open) : Optional.empty();
        return new Destination(to.transport(), address, flow);
    }

    /** The address of an unresolved peer (a blocking lookup: called on {@code resolving} only). */
    private static InetSocketAddress address(InetSocketAddress peer) {
        if (!peer.isUnresolved()) {
            return peer;
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(peer.getHostString()), peer.getPort());
        } catch (UnknownHostException e) {
            throw new CompletionException(e);
        }
    }
}
