package io.trunkgate.sip;

import java.util.List;
import javax.sip.ClientTransaction;
import javax.sip.RequestEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests inside a dialog the gateway record-routed (ACK for 2xx, BYE, re-INVITE, UPDATE, INFO...): they
 * follow the route set, without admission or pacing. ACK is forwarded statelessly; the others through a
 * server and a client transaction, with the responses relayed back.
 */
final class InDialogForwarder {

    private static final Logger log = LoggerFactory.getLogger(InDialogForwarder.class);

    /** Ties a forwarded request's client transaction to the server transaction its responses go back on. */
    record Forwarded(ServerTransaction server) {
        void relay(Response response) {
            if (response.getStatusCode() == Response.TRYING) {
                return;
            }
            try {
                server.sendResponse(SipMessages.relayed(response));
            } catch (Exception e) {
                log.debug("response to in-dialog {} not relayed: {}", server.getRequest().getMethod(), e.toString());
            }
        }
    }

    private final ProxyServices services;

    InDialogForwarder(ProxyServices services) {
        this.services = services;
    }

    void forwardAck(Request ack, SipProvider inbound) {
        if (!SipMessages.hasHopsLeft(ack)) {
            return;
        }
        try {
            Request routed = (Request) ack.clone();
            SipMessages.popOwnRoute(routed, inbound);
            if (addressedToUs(routed)) {
                return; // the ACK of a final answer of ours sent statelessly (a shed or unknown-source INVITE)
            }
            String transport = nextHopTransport(routed);
            SipProvider outbound = services.providerFor(transport);
            outbound.sendRequest(services.messages().forwarded(routed, null, outbound, transport, List.of()));
        } catch (Exception e) {
            log.debug("ACK not forwarded: {}", e.toString());
        }
    }

    void forward(RequestEvent event, SipProvider inbound, ServerTransaction server) {
        Request request = event.getRequest();
        try {
            if (!SipMessages.hasHopsLeft(request)) {
                server.sendResponse(services.messages().response(Response.TOO_MANY_HOPS, request));
                return;
            }
            Request routed = (Request) request.clone();
            SipMessages.popOwnRoute(routed, inbound);
            if (addressedToUs(routed)) {
                server.sendResponse(services.messages().response(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, request));
                return;
            }
            String transport = nextHopTransport(routed);
            SipProvider outbound = services.providerFor(transport);
            ClientTransaction client = outbound.getNewClientTransaction(
                    services.messages().forwarded(routed, null, outbound, transport, List.of()));
            client.setApplicationData(new Forwarded(server));
            client.sendRequest();
        } catch (Exception e) {
            log.info("in-dialog {} not forwarded: {}", request.getMethod(), e.toString());
            try {
                server.sendResponse(services.messages().response(Response.SERVICE_UNAVAILABLE, request));
            } catch (Exception ignored) {
                // the transaction is gone; the sender retransmits or gives up
            }
        }
    }

    /**
     * Whether nothing routes the request on: no Route left and the Request-URI is this proxy. The gateway
     * keeps no dialogs, so such a request is for no one, and forwarding it would send it to ourselves.
     */
    private boolean addressedToUs(Request routed) {
        if (routed.getHeader(RouteHeader.NAME) != null || !(routed.getRequestURI() instanceof SipURI target)) {
            return false;
        }
        return services.providers().stream().anyMatch(provider -> SipMessages.isOwn(target, provider));
    }

    /** The transport of the next hop: the top remaining Route, else the Request-URI; UDP by default. */
    private static String nextHopTransport(Request request) {
        RouteHeader route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        URI next = route != null ? route.getAddress().getURI() : request.getRequestURI();
        if (next instanceof SipURI sip && sip.getTransportParam() != null) {
            return sip.getTransportParam().toUpperCase(java.util.Locale.ROOT);
        }
        return "UDP";
    }
}
