package io.trunkgate.sip;

import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.config.SipListener;
import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.sip.transaction.ClientListener;
import io.trunkgate.sip.transaction.ClientTimeout;
import io.trunkgate.sip.transaction.ClientTransaction;
import io.trunkgate.sip.transaction.ServerTransaction;
import io.trunkgate.throttle.LogFields;
import java.net.InetAddress;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.sip.address.Address;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.RouteHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Requests inside a dialog the gateway admitted (ACK for 2xx, BYE, re-INVITE, UPDATE, INFO, PRACK...): relayed
 * only when the dialog is known, the request comes from one of its two ends ({@link DialogParties}), and it goes to
 * the other end. Everything else is refused (481 for a dialog that does not exist, 403 with a Reason for a sender
 * that speaks for neither end or a party aiming elsewhere; an ACK is absorbed), so nobody can use
 * the gateway to reach a carrier, or any other host, without admission. ACK is forwarded statelessly; the
 * others through a server and a client transaction, with the responses relayed back.
 */
final class InDialogForwarder {

    private static final Logger log = LoggerFactory.getLogger(InDialogForwarder.class);

    /** Why an in-dialog request is not relayed: its answer and the metric's reason tag. */

    /** A request that may be relayed (its copy routed on, and the dialog), or why it may not. */
    record Relay(Request routed, Dialog dialog, Flow flow, RequestRefusal refusal) {
        static Relay refused(RequestRefusal refusal) {
            return new Relay(null, null, null, refusal);
        }

        /** The transport to send on: the caller's connection's, else the next hop's. */
        String transport() {
            return flow != null ? flow.transport() : nextHopTransport(routed);
        }

        String host() {
            return flow != null ? flow.remote().getAddress().getHostAddress() : nextHop(routed).host();
        }

        /**
         * The request to send, built by {@code messages} to leave from {@code outbound}: {@code routed}, a copy
         * {@link #route} made for this relay alone, with the proxy's Via on top. Call once.
         */
        Request outgoing(SipMessages messages, SipListener outbound) throws Exception {
            return messages.forwardedCopy(routed, null, outbound, List.of());
        }
    }

    /**
     * Ties a forwarded request's client transaction (it listens to it) to the server transaction its responses go
     * back on.
     */
    final class Forwarded implements ClientListener {
        private final ServerTransaction server;
        private final Request request;
        private final Dialog dialog;

        Forwarded(ServerTransaction server, Dialog dialog) {
            this.server = server;
            this.request = server.request();
            this.dialog = dialog;
        }

        @Override
        public void provisional(ClientTransaction transaction, Response response) {
            relay(response);
        }

        @Override
        public void finalResponse(ClientTransaction transaction, Response response) {
            relay(response);
        }

        @Override
        public void timeout(ClientTransaction transaction, ClientTimeout timer) {
            timedOut();
        }

        /** The request could not be sent on (a connection refused): 503 upstream, as when it cannot be built. */
        @Override
        public void transportError(ClientTransaction transaction, Throwable cause) {
            log.debug("in-dialog {} not forwarded: {}", request.getMethod(), cause.toString());
            try {
                server.respond(messages.response(Response.SERVICE_UNAVAILABLE, request));
            } catch (Exception e) {
                log.debug("503 not sent: {}", e.toString());
            }
            ended();
        }

        ServerTransaction server() {
            return server;
        }

        void relay(Response response) {
            if (response.getStatusCode() == Response.TRYING) {
                return;
            }
            if (response.getStatusCode() >= 200) {
                ended();
            }
            if (response.getStatusCode() / 100 == 2 && refreshesSession(request.getMethod())) {
                dialogs.sessionRefreshed(dialog, SipMessages.sessionExpires(response));
            }
            server.respond(SipMessages.relayed(response));
        }

        /** The forwarded request got no answer at all: 408 upstream. */
        void timedOut() {
            try {
                server.respond(messages.response(Response.REQUEST_TIMEOUT, request));
            } catch (Exception e) {
                log.debug("408 not sent: {}", e.toString());
            }
            ended();
        }

        /** The requests whose 2xx refresh a session timer or turn it off (RFC 4028 §9). */
        private static boolean refreshesSession(String method) {
            return Request.INVITE.equals(method) || Request.UPDATE.equals(method);
        }

        /** A BYE answered (by any final response, or none) ends the dialog: nothing more is relayed in it. */
        private void ended() {
            if (Request.BYE.equals(request.getMethod())) {
                dialogs.byeAnswered(dialog, request);
            }
        }
    }

    private final DialogTable dialogs;
    private final SipMessages messages;
    private final GatewayMetrics metrics;
    private final InDialogStack stack;
    private final DialogParties parties;

    InDialogForwarder(DialogTable dialogs, SipMessages messages, GatewayMetrics metrics, InDialogStack stack,
                      DialogParties parties) {
        this.parties = parties;
        this.dialogs = dialogs;
        this.messages = messages;
        this.metrics = metrics;
        this.stack = stack;
    }

    /** The reason of trunkgate_sip_requests_absorbed_total for the ACK of a final response of the gateway's own. */
    static final String REFUSAL_ACK = "refusal_ack";

    /**
     * Relays an ACK for a 2xx within a known dialog; any other ACK is absorbed: the ACK of the gateway's own final
     * answer (a refusal sent without a transaction, e.g. to an unknown source) as such, not as an unknown dialog.
     */
    void forwardAck(Request ack) {
        if (!SipMessages.hasHopsLeft(ack)) {
            return;
        }
        if (SipMessages.isOwnTag(SipMessages.toTag(ack))) {
            metrics.requestAbsorbed(REFUSAL_ACK);
            return;
        }
        try {
            Relay relay = route(ack, SipMessages.source(ack), JainSip.callerCertificate(ack), false);
            if (relay.refusal() != null) {
                metrics.requestRefused(relay.refusal().tag);
                log.debug("ACK absorbed: {}", relay.refusal().tag);
                return;
            }
            stack.sendAck(relay);
            log.debug("ACK relayed to {}", relay.routed().getRequestURI());
        } catch (Exception e) {
            log.debug("ACK not forwarded: {}", e.toString());
        }
    }

    /** Relays a request that {@link #route} let through, on its server transaction. */
    void forward(Relay relay, ServerTransaction server) {
        Request request = server.request();
        try {
            stack.send(relay, new Forwarded(server, relay.dialog()));
            log.debug("{} relayed to {}", request.getMethod(), relay.routed().getRequestURI());
        } catch (Exception e) {
            log.warn("in-dialog {} to {} not forwarded", request.getMethod(), relay.routed().getRequestURI(), e);
            try {
                server.respond(messages.response(Response.SERVICE_UNAVAILABLE, request));
            } catch (Exception ignored) {
                // no answer can be built; the sender retransmits or gives up
            }
        }
    }

    /**
     * An operator ends the established {@code dialog}: a BYE of the gateway's own to each end (towards a caller on
     * TCP or TLS, on its connection while it is open), and the dialog ends at once, its record saying so
     * ({@code endedBy} and {@code hungUpBy} {@code operator}); the ends' answers to the BYEs are absorbed.
     */
    void hangUp(Dialog dialog) {
        Flow flow = dialog.callerFlow() != null && stack.isOpen(dialog.callerFlow()) ? dialog.callerFlow() : null;
        for (boolean toCallee : new boolean[] {true, false}) {
            try {
                if (!stack.sendBye(dialog, toCallee, toCallee ? null : flow)) {
                    log.warn("call={} operator hangup: no target for the {}", LogFields.value(dialog.callId()),
                            toCallee ? "callee" : "caller");
                }
            } catch (Exception e) {
                log.warn("call={} operator hangup: BYE to the {} not sent: {}", LogFields.value(dialog.callId()),
                        toCallee ? "callee" : "caller", e.toString());
            }
        }
        dialogs.hungUp(dialog);
    }

    /**
     * Whether a request from {@code source}, on a connection that presented {@code certificate} (if any), may be
     * relayed, and the copy to relay: the checks of this class's comment.
     */
    Relay route(Request request, InetAddress source, Optional<PresentedCertificate> certificate) throws Exception {
        return route(request, source, certificate, true);
    }

    /**
     * As {@link #route(Request, InetAddress, Optional)}; without {@code copy} the request itself is made the one to
     * relay: an ACK, which no transaction keeps (a server transaction answers from its request as received).
     */
    private Relay route(Request request, InetAddress source, Optional<PresentedCertificate> certificate,
                        boolean copy) throws Exception {
        String callId = SipMessages.callId(request);
        String fromTag = SipMessages.fromTag(request);
        String toTag = SipMessages.toTag(request);
        boolean fromCaller = true;
        Optional<Dialog> found = dialogs.find(callId, fromTag).filter(d -> d.isCalleeTag(toTag));
        if (found.isEmpty()) {
            fromCaller = false;
            found = dialogs.find(callId, toTag).filter(d -> d.isCalleeTag(fromTag));
        }
        if (found.isEmpty()) {
            return Relay.refused(RequestRefusal.UNKNOWN_DIALOG);
        }
        Dialog dialog = found.get();
        if (dialog.ended() && !Request.ACK.equals(request.getMethod())) {
            return Relay.refused(RequestRefusal.UNKNOWN_DIALOG);
        }
        if (!parties.maySpeak(dialog, fromCaller, source, certificate)) {
            return Relay.refused(RequestRefusal.NOT_A_PARTY);
        }
        Request routed = copy ? (Request) request.clone() : request;
        stack.popOwnRoutes(routed);
        if (routed.getHeader(RouteHeader.NAME) == null && stack.isOwn(routed.getRequestURI())) {
            // A request that names only the gateway (e.g. SIPp's built-in caller ignores Record-Route): it goes
            // to the other end's target along the route set the dialog learned.
            URI target = dialog.otherTarget(fromCaller);
            if (target == null) {
                return Relay.refused(RequestRefusal.UNKNOWN_DIALOG);
            }
            routed.setRequestURI((URI) target.clone());
            for (Address route : dialog.otherRoutes(fromCaller)) {
                routed.addLast(messages.headers().createRouteHeader(route));
            }
        }
        if (!dialog.mayRelayTo(nextHop(routed), fromCaller)) {
            return Relay.refused(RequestRefusal.ROUTE_NOT_ALLOWED);
        }
        if (!dialog.ended()) {
            dialogs.touch(dialog, Request.ACK.equals(routed.getMethod()));
            dialog.sent(fromCaller, ((CSeqHeader) request.getHeader(CSeqHeader.NAME)).getSeqNumber());
        }
        // Towards a caller on TCP, its own connection while it is open: behind NAT its Contact is not reachable.
        Flow flow = fromCaller || dialog.callerFlow() == null
                || !stack.isOpen(dialog.callerFlow())
                ? null : dialog.callerFlow();
        return new Relay(routed, dialog, flow, null);
    }

    /** Where the request goes next: its top Route, else its Request-URI (RFC 3261 §16.6 step 6). */
    private static Hop nextHop(Request request) {
        RouteHeader route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        return Hop.of(route != null ? route.getAddress().getURI() : request.getRequestURI());
    }

    /** The transport of the next hop: the top remaining Route, else the Request-URI; UDP by default. */
    private static String nextHopTransport(Request request) {
        RouteHeader route = (RouteHeader) request.getHeader(RouteHeader.NAME);
        return transportOf(route != null ? route.getAddress().getURI() : request.getRequestURI());
    }

    /** The transport a request to {@code next} goes on: TLS for sips, its transport parameter, else UDP. */
    static String transportOf(URI next) {
        if (next instanceof SipURI sip && sip.isSecure()) {
            return "TLS";
        }
        if (next instanceof SipURI sip && sip.getTransportParam() != null) {
            return sip.getTransportParam().toUpperCase(Locale.ROOT);
        }
        return "UDP";
    }
}
