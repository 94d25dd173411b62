package io.trunkgate.sip;

import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.SipSettings;
import io.trunkgate.gateway.ActiveConfig;
import io.trunkgate.records.CallRecord;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import javax.sip.ClientTransaction;
import javax.sip.DialogTerminatedEvent;
import javax.sip.IOExceptionEvent;
import javax.sip.RequestEvent;
import javax.sip.ResponseEvent;
import javax.sip.ServerTransaction;
import javax.sip.SipListener;
import javax.sip.SipProvider;
import javax.sip.TimeoutEvent;
import javax.sip.TransactionAlreadyExistsException;
import javax.sip.TransactionTerminatedEvent;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The stateful proxy's entry point: sorts what the stack delivers to the handler for it — new INVITEs,
 * CANCELs, in-dialog requests, responses and transaction timeouts.
 */
public final class SipProxy implements SipListener {

    private static final Logger log = LoggerFactory.getLogger(SipProxy.class);
    private static final Logger callLog = LoggerFactory.getLogger("trunkgate.calls");
    private static final double REFUSALS_PER_SOURCE_PER_SECOND = 5;
    private static final String ALLOWED_METHODS = "INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE, INFO, PRACK, REFER, NOTIFY";

    /** Why a new INVITE is refused before admission: the text of its Reason header and its metric tag. */
    private enum Shed {
        SHUTTING_DOWN("gateway shutting down", "shutting_down"),
        CALLS_IN_PROGRESS("too many calls in progress", "calls_in_progress"),
        CALL_RATE("over the gateway's new-call rate", "call_rate"),
        DIALOGS("too many dialogs", "dialogs");

        final String text;
        final String tag;

        Shed(String text, String tag) {
            this.text = text;
            this.tag = tag;
        }
    }

    private final ProxyServices services;
    private final RequestValidation validation;
    private final InDialogForwarder inDialog;
    private final StrayResponseRelay strays;
    /** Lines whose number (and text) strangers control: escaped, at most 10 a second. */
    private final ThrottledLog throttled = new ThrottledLog(log, 10, Duration.ofSeconds(1));
    /**
     * Stateless answers per source (refusals, OPTIONS): nobody can turn the gateway into a reflector or make it
     * flood its own log.
     */
    private final FloodGuard refusals = new FloodGuard(REFUSALS_PER_SOURCE_PER_SECOND, 100_000, System::nanoTime);
    private final TokenBucket newCalls = new TokenBucket();
    private volatile boolean draining;

    public SipProxy(ProxyServices services) {
        this.services = services;
        this.validation = new RequestValidation(services.messages(), services.config().get().config().sip().limits());
        this.inDialog = new InDialogForwarder(services);
        this.strays = new StrayResponseRelay(services);
    }

    /** From now on new INVITEs are answered 503: the gateway is shutting down. */
    public void drain() {
        draining = true;
    }

    @Override
    public void processRequest(RequestEvent event) {
        SipProvider provider = (SipProvider) event.getSource();
        Request request = event.getRequest();
        try {
            String method = request.getMethod();
            services.metrics().requestReceived(method);
            Optional<RequestValidation.Problem> problem = validation.problem(request);
            if (problem.isPresent()) {
                refuse(provider, request, problem.get());
            } else if (Request.ACK.equals(method)) {
                if (event.getServerTransaction() == null) {
                    inDialog.forwardAck(request);
                }
            } else if (Request.CANCEL.equals(method)) {
                onCancel(event, provider);
            } else if (SipMessages.toTag(request) != null) {
                onInDialog(event, provider);
            } else if (Request.INVITE.equals(method)) {
                onInvite(event, provider);
            } else if (refusals.allow(SipMessages.source(request))) {
                int status = Request.OPTIONS.equals(method) ? Response.OK : Response.METHOD_NOT_ALLOWED;
                Response response = services.messages().response(status, request);
                response.addHeader(services.messages().headers().createAllowHeader(ALLOWED_METHODS));
                provider.sendResponse(response);
            }
        } catch (Exception e) {
            throttled.log(Level.INFO, request.getMethod() + " from " + SipMessages.source(request) + " not handled", e);
        }
    }

    /** A request that failed validation: counted, and answered statelessly within the source's budget. */
    private void refuse(SipProvider provider, Request request, RequestValidation.Problem problem) throws Exception {
        services.metrics().requestRefused(problem.tag);
        if (problem.status != 0 && !Request.ACK.equals(request.getMethod())
                && refusals.allow(SipMessages.source(request))) {
            provider.sendResponse(validation.answer(problem, request));
        }
    }

    /**
     * A request with a To tag: relayed within a dialog the gateway admitted, else refused statelessly (no
     * transaction, so a refused INVITE's answer is not retransmitted at its sender).
     */
    private void onInDialog(RequestEvent event, SipProvider provider) throws Exception {
        Request request = event.getRequest();
        if (!SipMessages.hasHopsLeft(request)) {
            provider.sendResponse(services.messages().response(Response.TOO_MANY_HOPS, request));
            return;
        }
        InDialogForwarder.Relay relay = inDialog.route(request);
        if (relay.refusal() != null) {
            services.metrics().requestRefused(relay.refusal().tag);
            log.debug("{} refused: {}", request.getMethod(), relay.refusal().tag);
            if (refusals.allow(SipMessages.source(request))) {
                provider.sendResponse(services.messages().response(relay.refusal().status, request));
            }
            return;
        }
        serverTransaction(event, provider).ifPresent(st -> inDialog.forward(relay, st));
    }

    private void onInvite(RequestEvent event, SipProvider provider) throws Exception {
        Request request = event.getRequest();
        ActiveConfig active = services.config().get();
        InetAddress source = SipMessages.source(request);
        Optional<PeerConfig> peer = active.peers().find(source);
        if (peer.isEmpty()) {
            int code = active.config().admission().unknownPeerCode();
            if (!refusals.allow(source)) {
                return;
            }
            throttled.log(Level.INFO, "INVITE from unknown source " + source + " " + (code == 0 ? "dropped" : "answered " + code));
            if (code != 0) {
                provider.sendResponse(services.messages().refusal(code, request, "unknown source", 0));
            }
            return;
        }
        Optional<Shed> shed = shedReason(active);
        if (shed.isPresent()) {
            // Stateless: under overload no transaction, timer or call state is created for what is refused.
            provider.sendResponse(services.messages().refusal(Response.SERVICE_UNAVAILABLE, request, shed.get().text, 1));
            callLog.info("call={} peer={} admission=shed({}) final=503", callId(request), peer.get().id(),
                    shed.get().tag);
            services.metrics().callShed(peer.get().id(), shed.get().tag);
            Instant now = Instant.now();
            services.records().write(new CallRecord(callId(request), peer.get().id(), peer.get().group().orElse(null),
                    "shed", shed.get().tag, List.of(), List.of(), 0, now, null, now, 0,
                    Response.SERVICE_UNAVAILABLE, "failed", active.config().instanceId()));
            return;
        }
        Optional<ServerTransaction> server = serverTransaction(event, provider);
        if (server.isEmpty()) {
            return;
        }
        if (!SipMessages.hasHopsLeft(request)) {
            server.get().sendResponse(services.messages().refusal(Response.TOO_MANY_HOPS, request,
                    "Max-Forwards exhausted", 0));
            return;
        }
        server.get().sendResponse(services.messages().response(Response.TRYING, request));
        new InviteCall(services, active, server.get(), provider, peer.get()).start();
    }

    /** Why a new INVITE is refused before anything is done for it, if it is: shutdown or overload. */
    private Optional<Shed> shedReason(ActiveConfig active) {
        if (draining) {
            return Optional.of(Shed.SHUTTING_DOWN);
        }
        SipSettings sip = active.config().sip();
        if (services.calls().size() >= sip.maxCallsInProgress()) {
            return Optional.of(Shed.CALLS_IN_PROGRESS);
        }
        if (services.dialogs().full()) {
            return Optional.of(Shed.DIALOGS);
        }
        double perSecond = sip.maxNewCallsPerSecond();
        if (perSecond > 0 && !newCalls.tryTake(System.nanoTime(), perSecond, Math.max(1, perSecond / 10))) {
            return Optional.of(Shed.CALL_RATE);
        }
        return Optional.empty();
    }

    private static String callId(Request request) {
        CallIdHeader header = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        return header == null ? "-" : header.getCallId();
    }

    private void onCancel(RequestEvent event, SipProvider provider) throws Exception {
        Request cancel = event.getRequest();
        // Only the caller may cancel its call: a CANCEL names the INVITE by Call-ID and branch, both on the wire.
        Optional<InviteCall> call = services.calls().find(cancel)
                .filter(c -> c.callerSource().equals(SipMessages.source(cancel)));
        Optional<ServerTransaction> server = serverTransaction(event, provider);
        if (server.isEmpty()) {
            return;
        }
        if (call.isEmpty()) {
            server.get().sendResponse(services.messages().response(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, cancel));
            return;
        }
        server.get().sendResponse(services.messages().response(Response.OK, cancel));
        call.get().cancel();
    }

    /** The request's server transaction, new if needed; empty for a retransmission the stack already has. */
    private static Optional<ServerTransaction> serverTransaction(RequestEvent event, SipProvider provider)
            throws Exception {
        if (event.getServerTransaction() != null) {
            return Optional.of(event.getServerTransaction());
        }
        try {
            return Optional.of(provider.getNewServerTransaction(event.getRequest()));
        } catch (TransactionAlreadyExistsException retransmission) {
            return Optional.empty();
        }
    }

    @Override
    public void processResponse(ResponseEvent event) {
        ClientTransaction client = event.getClientTransaction();
        Response response = event.getResponse();
        if (client == null) {
            strays.relay(response);
        } else if (client.getApplicationData() instanceof InviteCall call) {
            call.onResponse(client, response);
        } else if (client.getApplicationData() instanceof InDialogForwarder.Forwarded forwarded) {
            forwarded.relay(response);
        }
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
        if (!event.isServerTransaction() && event.getClientTransaction() != null) {
            Object data = event.getClientTransaction().getApplicationData();
            if (data instanceof InviteCall call) {
                call.onTransactionTimeout(event.getClientTransaction());
            } else if (data instanceof InDialogForwarder.Forwarded forwarded) {
                forwarded.timedOut();
            }
        }
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        log.debug("I/O error with {}:{}/{}", event.getHost(), event.getPort(), event.getTransport());
    }

    @Override
    public void processTransactionTerminated(TransactionTerminatedEvent event) {
        // transactions clean up after themselves; calls leave the registry at their final response
    }

    @Override
    public void processDialogTerminated(DialogTerminatedEvent event) {
        // the stack keeps no dialogs (AUTOMATIC_DIALOG_SUPPORT off): the gateway's own are in DialogTable
    }
}
