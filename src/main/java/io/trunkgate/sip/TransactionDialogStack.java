package io.trunkgate.sip;

import io.trunkgate.config.SipListener;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.TransactionLayer;
import io.trunkgate.sip.transaction.Wire;
import io.trunkgate.sip.transport.SipTransports;
import java.util.Optional;
import javax.sip.address.URI;
import javax.sip.message.Request;

/**
 * The in-dialog forwarder's stack on the gateway's transaction layer: an ACK sent statelessly, any other request in
 * a client transaction, each to the caller's connection while it is open, else to its next hop.
 */
final class TransactionDialogStack implements InDialogStack {

    private final OwnListeners listeners;
    private final TransactionLayer layer;
    private final Wire wire;
    private final SipTransports transports;
    private final SipMessages messages;

    TransactionDialogStack(OwnListeners listeners, TransactionLayer layer, Wire wire, SipTransports transports,
                           SipMessages messages) {
        this.listeners = listeners;
        this.layer = layer;
        this.wire = wire;
        this.transports = transports;
        this.messages = messages;
    }

    @Override
    public void popOwnRoutes(Request request) {
        SipMessages.popOwnRoutes(request, listeners);
    }

    @Override
    public boolean isOwn(URI uri) {
        return SipMessages.isOwn(uri, listeners);
    }

    @Override
    public boolean isOpen(Flow flow) {
        return transports.isOpen(Transport.parse(flow.transport()), flow.remote());
    }

    @Override
    public void sendAck(InDialogForwarder.Relay relay) throws Exception {
        Request ack = relay.outgoing(messages, outbound(relay));
        wire.send(ack, peer(relay.flow(), ack));
    }

    @Override
    public void send(InDialogForwarder.Relay relay, InDialogForwarder.Forwarded forwarded) throws Exception {
        Request request = relay.outgoing(messages, outbound(relay));
        layer.send(request, peer(relay.flow(), request), forwarded);
    }

    @Override
    public boolean sendBye(Dialog dialog, boolean toCallee, Flow flow) throws Exception {
        Optional<Dialog.OwnRequest> own = dialog.ownRequest(toCallee);
        if (own.isEmpty() || own.get().target() == null) {
            return false;
        }
        URI next = own.get().routes().isEmpty() ? own.get().target() : own.get().routes().get(0).getURI();
        Hop hop = Hop.of(next);
        if (flow == null && hop == null) {
            return false;
        }
        String transport = flow != null ? flow.transport() : InDialogForwarder.transportOf(next);
        String host = flow != null ? flow.remote().getAddress().getHostAddress() : hop.host();
        Optional<Request> bye = messages.byeInDialog(dialog, toCallee,
                listeners.forTransport(Transport.parse(transport), host));
        if (bye.isEmpty()) {
            return false;
        }
        layer.send(bye.get(), peer(flow, bye.get()), Absorbed.ANSWERS);
        return true;
    }

    private SipListener outbound(InDialogForwarder.Relay relay) {
        return listeners.forTransport(Transport.parse(relay.transport()), relay.host());
    }

    /** Back on the caller's connection {@code flow} (the transports send on the one open from there), else on. */
    private static Peer peer(Flow flow, Request request) {
        return flow != null ? Peer.of(Transport.parse(flow.transport()), flow.remote()) : Peers.nextHop(request);
    }
}
