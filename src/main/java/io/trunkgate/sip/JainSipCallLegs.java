package io.trunkgate.sip;

import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.sip.jainsip.InviteRetransmissions;
import io.trunkgate.sip.jainsip.JainSip;
import java.util.List;
import java.util.Locale;
import javax.sip.ClientTransaction;
import javax.sip.ListeningPoint;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.TransactionState;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.message.Request;
import javax.sip.message.Response;

/**
 * One call's legs on JAIN-SIP: the caller's INVITE server transaction and the provider it came in on, and a client
 * transaction per carrier leg, whose application data is the {@link CarrierLeg} that takes its responses.
 */
final class JainSipCallLegs implements CallLegs {

    /** A carrier leg: its client transaction, and the call its responses and timeout go to. */
    record CarrierLeg(ClientTransaction transaction, InviteCall call) implements Leg {
    }

    private final ServerTransaction server;
    /** The provider (listening address) the INVITE came in on: its Record-Route is the caller's way back. */
    private final SipProvider inbound;
    private final SipProviders providers;
    private final SipMessages messages;
    private final UdpSizeRule sizeRule;
    /** {@code sip.path-mtu}: a request to a carrier within {@link UdpSizeRule#MARGIN} of it goes over TCP. */
    private final int pathMtu;

    JainSipCallLegs(ServerTransaction server, SipProvider inbound, SipProviders providers, SipMessages messages,
                    UdpSizeRule sizeRule, int pathMtu) {
        this.server = server;
        this.sizeRule = sizeRule;
        this.pathMtu = pathMtu;
        this.inbound = inbound;
        this.providers = providers;
        this.messages = messages;
    }

    @Override
    public void answer(Response response) throws Exception {
        server.sendResponse(response);
    }

    @Override
    public void answerAgain(Response response) throws Exception {
        inbound.sendResponse(response);
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
        int size = SipMessages.wireSize(out.request(), ListeningPoint.UDP);
        if (!UdpSizeRule.tooBig(size, pathMtu)) {
            return out;
        }
        if (UdpSizeRule.udpOnly(uri)) {
            sizeRule.keptOnUdp(carrierId, to, size, pathMtu, "its URI says transport=udp");
            return out;
        }
        if (!providers.has(ListeningPoint.TCP)) {
            sizeRule.keptOnUdp(carrierId, to, size, pathMtu, "sip.listeners has no TCP listener to send from");
            return out;
        }
        return build(invite, number, uri, UdpSizeRule.overTcp(to));
    }

    private Outgoing build(Request invite, String number, SipUri uri, CarrierAddress to) throws Exception {
        String transport = to.transport().name();
        SipProvider outbound = providers.forTransport(transport, to.ip());
        List<ListeningPoint> recordRoutes = SipMessages.recordRoutes(invite, inbound, outbound, transport);
        return new Outgoing(messages.toCarrier(invite, number, uri, to, outbound, recordRoutes), to,
                recordRoutes.size());
    }

    @Override
    public Leg send(Outgoing invite, InviteCall call) throws Exception {
        ClientTransaction client = providers.forTransport(invite.to().transport().name(), invite.to().ip())
                .getNewClientTransaction(invite.request());
        CarrierLeg leg = new CarrierLeg(client, call);
        client.setApplicationData(leg);
        client.sendRequest();
        return leg;
    }

    @Override
    public void cancel(Leg leg, CarrierAddress to) throws Exception {
        Request cancel = transaction(leg).createCancel();
        SipMessages.aim(cancel, to); // where the INVITE went (RFC 3261 §9.1)
        providers.forTransport(to.transport().name(), to.ip()).getNewClientTransaction(cancel).sendRequest();
    }

    @Override
    public void stopRetransmitting(Leg leg) {
        InviteRetransmissions.stop(transaction(leg));
    }

    @Override
    public boolean abandon(Leg leg) throws Exception {
        ClientTransaction transaction = transaction(leg);
        TransactionState state = transaction.getState();
        if (state != TransactionState.CALLING && state != TransactionState.PROCEEDING) {
            return false;
        }
        transaction.terminate();
        return true;
    }

    @Override
    public void closeAnswered(Leg leg, Response answer, List<Address> routes) throws Exception {
        Request invite = transaction(leg).getRequest();
        SipURI uri = (SipURI) invite.getRequestURI();
        String transport = uri.getTransportParam() != null ? uri.getTransportParam().toUpperCase(Locale.ROOT)
                : "UDP";
        SipProvider outbound = providers.forTransport(transport, uri.getHost());
        outbound.sendRequest(messages.inAnsweredDialog(Request.ACK, invite, answer, routes, outbound, transport));
        outbound.getNewClientTransaction(messages.inAnsweredDialog(Request.BYE, invite, answer, routes, outbound,
                transport)).sendRequest();
    }

    private static ClientTransaction transaction(Leg leg) {
        return ((CarrierLeg) leg).transaction();
    }
}
