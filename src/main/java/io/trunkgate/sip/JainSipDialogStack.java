package io.trunkgate.sip;

import io.trunkgate.sip.jainsip.FlowRouter;
import io.trunkgate.sip.jainsip.JainSip;
import java.util.Optional;
import javax.sip.ClientTransaction;
import javax.sip.SipProvider;
import javax.sip.address.URI;
import javax.sip.message.Request;

/** The in-dialog forwarder's stack on JAIN-SIP: the gateway's providers, and a client transaction per request. */
final class JainSipDialogStack implements InDialogStack {

    private final SipProviders providers;
    private final SipMessages messages;

    JainSipDialogStack(SipProviders providers, SipMessages messages) {
        this.providers = providers;
        this.messages = messages;
    }

    @Override
    public void popOwnRoutes(Request request) {
        SipMessages.popOwnRoutes(request, providers.all());
    }

    @Override
    public boolean isOwn(URI uri) {
        return SipMessages.isOwn(uri, providers.all());
    }

    @Override
    public boolean isOpen(Flow flow) {
        return FlowRouter.isOpen(providers.all().get(0).getSipStack(), flow);
    }

    @Override
    public void sendAck(InDialogForwarder.Relay relay) throws Exception {
        SipProvider outbound = providers.forTransport(relay.transport(), relay.host());
        outbound.sendRequest(relay.outgoing(messages, outbound));
    }

    @Override
    public void send(InDialogForwarder.Relay relay, InDialogForwarder.Forwarded forwarded) throws Exception {
        SipProvider outbound = providers.forTransport(relay.transport(), relay.host());
        ClientTransaction client = outbound.getNewClientTransaction(relay.outgoing(messages, outbound));
        client.setApplicationData(forwarded);
        client.sendRequest();
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
        SipProvider outbound = providers.forTransport(transport, host);
        Optional<Request> bye = messages.byeInDialog(dialog, toCallee, outbound, transport);
        if (bye.isEmpty()) {
            return false;
        }
        JainSip.sendOn(bye.get(), flow);
        outbound.getNewClientTransaction(bye.get()).sendRequest();
        return true;
    }
}
