package io.trunkgate.sip;

import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.ServerTransaction;
import io.trunkgate.sip.transaction.TransactionLayer;
import io.trunkgate.sip.transaction.Wire;
import java.time.Duration;
import java.util.List;
import javax.sip.address.Address;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * One call's legs on the gateway's transaction layer: the caller's INVITE server transaction and the listener it
 * came in on, and a client transaction per carrier leg, whose listener is the {@link CarrierLeg} that hands its
 * responses, timeout and transport error to the call.
 */
final class TransactionCallLegs implements CallLegs {

    /** A carrier leg: its client transaction, and the call its responses and timeout go to. */
    static final class CarrierLeg implements Leg, ClientListener {
        private final InviteCall call;
        private ClientTransaction transaction;
        /** The layer ended the leg 64*T1 after its CANCEL, before the call's own timer asked ({@link #abandon}). */
        private boolean cancelUnanswered;

        CarrierLeg(InviteCall call) {
            this.call = call;
        }

        @Override
        public void provisional(ClientTransaction transaction, Response response) {
            call.onResponse(this, response);
        }

        @Override
        public void finalResponse(ClientTransaction transaction, Response response) {
            call.onResponse(this, response);
        }

        @Override
        public void timeout(ClientTransaction transaction, ClientTimeout timer) {
            if (timer == ClientTimeout.CANCEL_UNANSWERED) {
                // the call's own timer of the same span ends the call (InviteCall#onCancelUnanswered)
                cancelUnanswered = true;
            } else {
                call.onTransactionTimeout(this);
            }
        }

        @Override
        public void transportError(ClientTransaction transaction, Throwable cause) {
            call.onTransportError(this, cause);
        }
    }

    private final ServerTransaction server;
    /** The listener the INVITE came in on: its Record-Route is the caller's way back. */
    private final SipListener inbound;
    private final OwnListeners listeners;
    private final TransactionLayer layer;
    private final Wire wire;
    private final SipMessages messages;
    private final UdpSizeRule sizeRule;
    /** {@code sip.path-mtu}: a request to a carrier within {@link UdpSizeRule#MARGIN} of it goes over TCP. */
    private final int pathMtu;

    TransactionCallLegs(ServerTransaction server, SipListener inbound, OwnListeners listeners, TransactionLayer layer,
                        Wire wire, SipMessages messages, UdpSizeRule sizeRule, int pathMtu) {
        this.server = server;
        this.inbound = inbound;
        this.listeners = listeners;
        this.layer = layer;
        this.wire = wire;
        this.messages = messages;
        this.sizeRule = sizeRule;
        this.pathMtu = pathMtu;
    }

    @Override
    public void answer(Response response) {
        server.respond(response);
    }

    @Override
    public void answerAgain(Response response) {
        server.respond(response);
    }

    @Override
    public Outgoing toCarrier(Request invite, String number, String carrierId, SipUri uri, CarrierAddress to)
            throws Exception {
        Outgoing out = build(invite, number, uri, to);
        if (to.transport() != Transport.UDP) {
            return out;
        }
        // a request the parser sized (every one received) and far below the limit is not measured again
        if (JainSip.headerSize(invite) > 0 && !UdpSizeRule.mayBeTooBig(SipMessages.size(invite), pathMtu)) {
            return out;
        }
        int size = SipMessages.wireSize(out.request(), Transport.UDP.name());
        if (!UdpSizeRule.tooBig(size, pathMtu)) {
            return out;
        }
        if (UdpSizeRule.udpOnly(uri)) {
            sizeRule.keptOnUdp(carrierId, to, size, pathMtu, "its URI says transport=udp");
            return out;
        }
        if (!listeners.has(Transport.TCP)) {
            sizeRule.keptOnUdp(carrierId, to, size, pathMtu, "sip.listeners has no TCP listener to send from");
            return out;
        }
        return build(invite, number, uri, UdpSizeRule.overTcp(to));
    }

    private Outgoing build(Request invite, String number, SipUri uri, CarrierAddress to) throws Exception {
        SipListener outbound = listeners.forTransport(to.transport(), to.ip());
        List<SipListener> recordRoutes = SipMessages.recordRoutes(inbound, outbound);
        return new Outgoing(messages.toCarrier(invite, number, uri, to, outbound, recordRoutes), to,
                recordRoutes.size());
    }

    @Override
    public Leg send(Outgoing invite, Duration timerC, InviteCall call) {
        CarrierLeg leg = new CarrierLeg(call);
        leg.transaction = layer.send(invite.request(), Peers.of(invite.to()), leg, timerC);
        return leg;
    }

    @Override
    public void cancel(Leg leg, CarrierAddress to) {
        // the layer sends it where the INVITE went (RFC 3261 §9.1), which is to
        transaction(leg).cancel();
    }

    @Override
    public void stopRetransmitting(Leg leg) {
        transaction(leg).stopRetransmitting();
    }

    @Override
    public boolean abandon(Leg leg) {
        CarrierLeg carrier = (CarrierLeg) leg;
        if (carrier.cancelUnanswered) {
            carrier.cancelUnanswered = false;
            return true;
        }
        return carrier.transaction.abandon();
    }

    @Override
    public void closeAnswered(Leg leg, Response answer, List<Address> routes) throws Exception {
        Request invite = transaction(leg).request();
        SipListener outbound = listeners.forTransport(transaction(leg).peer().transport(),
                transaction(leg).peer().address().getHostString());
        Request ack = messages.inAnsweredDialog(Request.ACK, invite, answer, routes, outbound);
        Peer to = Peers.nextHop(ack);
        if (to.transport() != outbound.transport()) {
            outbound = listeners.forTransport(to.transport(), to.address().getHostString());
            ack = messages.inAnsweredDialog(Request.ACK, invite, answer, routes, outbound);
        }
        wire.send(ack, to);
        layer.send(messages.inAnsweredDialog(Request.BYE, invite, answer, routes, outbound), to, Absorbed.ANSWERS);
    }

    private static ClientTransaction transaction(Leg leg) {
        return ((CarrierLeg) leg).transaction;
    }
}
