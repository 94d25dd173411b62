package io.trunkgate.sip;

import io.trunkgate.auth.DigestCheck;
import io.trunkgate.sip.jainsip.JainSip;
import io.trunkgate.config.PresentedCertificate;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.ShedReason;
import io.trunkgate.records.CallRecord;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.sip.wire.NewCallGate;
import io.trunkgate.sip.wire.NewCallTriage;
import io.trunkgate.throttle.SourceAnswerBudget;
import io.trunkgate.throttle.LogFields;
import io.trunkgate.throttle.ThrottledLog;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
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
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The stateful proxy's entry point: sorts what the stack delivers to the handler for it — new INVITEs,
 * CANCELs, in-dialog requests, responses and transaction timeouts.
 */
public final class SipProxy implements SipListener, NewCallGate {

    private static final Logger log = LoggerFactory.getLogger(SipProxy.class);
    private static final Logger callLog = LoggerFactory.getLogger("trunkgate.calls");
    private static final double REFUSALS_PER_SOURCE_PER_SECOND = 5;
    /** Sources with a refusal budget at once; beyond it the table starts afresh (see SourceAnswerBudget). */
    private static final int MAX_TRACKED_SOURCES = 100_000;
    /** Log lines about what strangers sent, per {@code LOG_SUMMARY_DELAY}; the rest are counted in a summary. */
    private static final int LOG_LINES_PER_SECOND = 10;
    private static final Duration LOG_SUMMARY_DELAY = Duration.ofSeconds(1);
    /** The reason of trunkgate_sip_requests_absorbed_total for a copy of an answered INVITE. */
    private static final String ANSWERED_INVITE = "answered_invite";
    /**
     * The reason of trunkgate_sip_requests_absorbed_total for a copy of a shed INVITE, answered its 503 again, and
     * for an INVITE let in whose copy was shed while it waited to be parsed, dropped.
     */
    private static final String SHED_INVITE = "shed_invite";
    private static final String ALLOWED_METHODS = "INVITE, ACK, BYE, CANCEL, OPTIONS, UPDATE, INFO, PRACK, REFER, NOTIFY";

    private final ProxyServices services;
    /** What each call works with (admission, routing, records, metrics, time). */
    private final CallServices callServices;
    private final OverloadController overload;
    private final RequestValidation validation;
    private final InDialogForwarder inDialog;
    private final StrayResponseRelay strays;
    /** Which peer a new INVITE is from: by its digest credentials, certificate or source. */
    private final PeerIdentification identification;
    /** RFC 3261 §18.1.1 for INVITEs to carriers; it remembers which carriers it warned about. */
    private final UdpSizeRule udpSizeRule = new UdpSizeRule();
    /** Lines whose number (and text) strangers control: escaped, at most 10 a second. */
    private final ThrottledLog throttled = new ThrottledLog(log, LOG_LINES_PER_SECOND, LOG_SUMMARY_DELAY);
    /**
     * Stateless answers per source (refusals, OPTIONS): nobody can turn the gateway into a reflector or make it
     * flood its own log.
     */
    private final SourceAnswerBudget refusals;

    /**
     * @param overload  whether a new call is shed (the drain, the caps, overload), asked before it is parsed
     * @param nanoClock what the stateless answers per source refill by ({@link System#nanoTime})
     */
    public SipProxy(ProxyServices services, OverloadController overload, LongSupplier nanoClock) {
        this.services = services;
        this.callServices = CallServices.of(services);
        this.overload = overload;
        this.refusals = new SourceAnswerBudget(REFUSALS_PER_SOURCE_PER_SECOND, MAX_TRACKED_SOURCES, nanoClock);
        this.validation = new RequestValidation(services.messages(), services.config().get().config().sip().limits());
        this.inDialog = new InDialogForwarder(services.dialogs(), services.messages(), services.metrics(),
                new JainSipDialogStack(services.providers(), services.messages()),
                new DialogParties(services.config(), services.resolver()));
        this.strays = new StrayResponseRelay(services.providers(), services.dialogs(), services.metrics());
        this.identification = new PeerIdentification(services.authentication(), services.messages(),
                services.metrics());
        services.metrics().sipReasons(AdmissionLabels.rejectionReasons(),
                Arrays.stream(ShedReason.values()).map(ShedReason::tag).toList(),
                Arrays.stream(RequestRefusal.values()).map(r -> r.tag).toList(),
                List.of(ANSWERED_INVITE, SHED_INVITE, InDialogForwarder.REFUSAL_ACK), StrayResponseRelay.DROP_REASONS);
    }

    /** The calls in progress, to list and end (the admin API's /api/calls). */
    public OperatorCalls operatorCalls() {
        return new OperatorCalls(services.calls(), services.dialogs(), inDialog);
    }

    /** Whether a stateless answer to {@code source} is within its budget now; spends one if so. */
    boolean mayAnswer(InetAddress source) {
        return refusals.allow(source);
    }

    @Override
    public void processRequest(RequestEvent event) {
        SipProvider provider = (SipProvider) event.getSource();
        Request request = event.getRequest();
        try {
            String method = request.getMethod();
            services.metrics().requestReceived(method);
            Optional<RequestRefusal> problem = validation.problem(request);
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
            throttled.log(Level.WARN, request.getMethod() + " from " + SipMessages.source(request) + " not handled", e);
        }
    }

    /** A request that failed validation: counted, and answered statelessly within the source's budget. */
    private void refuse(SipProvider provider, Request request, RequestRefusal problem) throws Exception {
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
        InDialogForwarder.Relay relay = inDialog.route(request, SipMessages.source(request),
                JainSip.callerCertificate(request));
        if (relay.refusal() != null) {
            services.metrics().requestRefused(relay.refusal().tag);
            log.debug("{} refused: {}", request.getMethod(), relay.refusal().tag);
            if (refusals.allow(SipMessages.source(request))) {
                RequestRefusal refusal = relay.refusal();
                provider.sendResponse(refusal.reason == null ? services.messages().response(refusal.status, request)
                        : services.messages().refusal(refusal.status, request, refusal.reason, 0));
            }
            return;
        }
        serverTransaction(event, provider).ifPresent(st -> inDialog.forward(relay, st));
    }

    private void onInvite(RequestEvent event, SipProvider provider) throws Exception {
        Request request = event.getRequest();
        ActiveConfig active = services.config().get();
        InetAddress source = SipMessages.source(request);
        PeerIdentification.Identified caller = identification.identify(request, source,
                JainSip.callerCertificate(request), active);
        if (caller instanceof PeerIdentification.Answer answer) {
            if (!answer.budgeted() || refusals.allow(source)) {
                provider.sendResponse(answer.response());
            }
            return;
        }
        Optional<PeerConfig> peer = caller instanceof PeerIdentification.Peer found ? Optional.of(found.peer())
                : Optional.empty();
        Optional<DigestCheck.Accepted> digest = caller instanceof PeerIdentification.Peer found ? found.digest()
                : Optional.empty();
        if (peer.isEmpty()) {
            int code = active.config().admission().unknownPeerCode();
            services.metrics().unknownSource(); // every one, whatever the log and the answers' budget let through
            if (!refusals.allow(source)) {
                return;
            }
            throttled.log(Level.INFO, "INVITE from unknown source " + source + " " + (code == 0 ? "dropped" : "answered " + code));
            if (code != 0) {
                provider.sendResponse(services.messages().refusal(code, request, "unknown source", 0));
            }
            return;
        }
        if (services.dialogs().isCopyOfInvite(request)) {
            // Its server transaction is over, so the call was answered (a copy while it runs never gets here);
            // the carrier's 2xx, retransmitted until the ACK, reaches the caller through the dialog.
            services.metrics().requestAbsorbed(ANSWERED_INVITE);
            return;
        }
        CallIdentity identity = CallIdentity.of(request);
        if (services.calls().refusedLately(identity).flatMap(CallRegistry.Refused::shedReason).isPresent()) {
            // Let in before it was parsed, it waited for a worker while a copy of it was shed: the call is over,
            // with its record, and its caller holds that 503 (a copy from the same transaction needs no other, and
            // the caller's INVITE client transaction ignores any beside re-sending the ACK). Had the 503 been
            // lost, the caller sends the INVITE again, and that copy hears the 503 again before it is parsed.
            services.metrics().requestAbsorbed(SHED_INVITE);
            return;
        }
        if (digest.isPresent() && shedAuthenticated(provider, request, identity, source, peer.get(), active)) {
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
        if (digest.isPresent()) {
            // Checked once the transaction absorbs the INVITE's retransmissions: each copy is not a replay.
            useCredentials(digest.get(), provider, server.get(), active, identity, source, peer.get());
            return;
        }
        startCall(request, provider, server.get(), active, identity, source, peer.get());
    }

    /**
     * An INVITE accepted on digest credentials: the call starts if this is their nonce and nonce-count's first use
     * in the fleet, else the INVITE is challenged again.
     */
    private void useCredentials(DigestCheck.Accepted accepted, SipProvider provider, ServerTransaction server,
                                ActiveConfig active, CallIdentity identity, InetAddress source, PeerConfig peer) {
        Request request = server.getRequest();
        identification.firstUse(accepted, active).whenComplete((first, error) -> {
            try {
                if (error != null) {
                    throttled.log(Level.WARN, "INVITE from " + source + ": credentials' use not recorded", error);
                    server.sendResponse(services.messages().refusal(Refusals.INTERNAL_ERROR.status(), request,
                            Refusals.INTERNAL_ERROR.reason(), 0));
                } else if (first) {
                    startCall(request, provider, server, active, identity, source, peer);
                } else {
                    server.sendResponse(identification.replayed(request, peer, source));
                }
            } catch (Exception e) {
                throttled.log(Level.WARN, "INVITE from " + source + " not handled", e);
            }
        });
    }

    /**
     * A peer known by its credentials only once its INVITE was parsed meets overload control now, as the others do
     * before parsing ({@link #shed}): answered 503 statelessly if shed.
     */
    private boolean shedAuthenticated(SipProvider provider, Request request, CallIdentity identity,
                                      InetAddress source, PeerConfig peer, ActiveConfig active) throws Exception {
        Optional<String> shed = shed(source, identity.callId(), identity.fromTag(), identity.cseq(), active,
                () -> Optional.of(peer),
                () -> overload.shed(services.calls().size(), services.dialogs().full(), Duration.ZERO));
        if (shed.isPresent()) {
            provider.sendResponse(services.messages().refusal(Response.SERVICE_UNAVAILABLE, request, shed.get(), 1));
        }
        return shed.isPresent();
    }

    private void startCall(Request request, SipProvider provider, ServerTransaction server, ActiveConfig active,
                           CallIdentity identity, InetAddress source, PeerConfig peer) throws Exception {
        CallLegs legs = new JainSipCallLegs(server, provider, services.providers(), services.messages(),
                udpSizeRule, active.config().sip().limits().pathMtu());
        Optional<Challenge> challenge = services.calls().takeChallenge(identity, peer.id(),
                SipMessages.hasCredentials(request));
        InviteCall call = new InviteCall(callServices, active, request, identity,
                new InetSocketAddress(source, SipMessages.sourcePort(request)), legs, peer, challenge);
        if (services.dialogs().live(call.identity().callId(), call.identity().fromTag())
                || !services.calls().add(call)) {
            // RFC 3261 §8.2.2.2: the Call-ID and From tag of a call in progress, outside its dialog
            challenge.ifPresent(taken -> taken.over().run());
            services.metrics().requestRefused(RequestRefusal.MERGED_REQUEST.tag);
            server.sendResponse(services.messages().refusal(Refusals.CALL_IN_PROGRESS.status(), request,
                    Refusals.CALL_IN_PROGRESS.reason(), 0));
            return;
        }
        try {
            server.sendResponse(services.messages().response(Response.TRYING, request));
        } catch (Exception e) {
            services.calls().remove(call); // never started: its Call-ID and From tag must not stay taken
            challenge.ifPresent(taken -> taken.over().run());
            throw e;
        }
        call.start();
    }

    /**
     * Sheds a new INVITE before it is parsed (the transport's {@link NewCallTriage} asks, on the listener's
     * thread): the Reason of its 503, or empty to let it in. A peer's INVITE is shed when the
     * {@link OverloadController} says so; see {@link #shed(InetAddress, Optional, String, String, long, ActiveConfig, Supplier)}.
     */
    @Override
    public Optional<String> shed(InetAddress source, Optional<PresentedCertificate> certificate, String callId,
                                 String callerTag, long cseq, Duration waitAhead) {
        return shed(source, certificate, callId, callerTag, cseq, services.config().get(),
                () -> overload.shed(services.calls().size(), services.dialogs().full(), waitAhead));
    }

    /**
     * Sheds a new INVITE of one of {@code active}'s peers for the {@code reason} given, if any, with its call log
     * line, metric and record. INVITEs from unknown sources (answered within their budget) and copies of a call in
     * progress or answered go on, to be answered as usual (a caller that read the 200 late sends its INVITE again:
     * a 503 to that copy would end an answered call at the caller). A copy of a call refused lately is answered
     * as that call was, whatever the load now: shed again with its Reason, without a record, or left to the stack
     * whose transaction answered it; so a call has one record however many copies of its INVITE come. An INVITE let
     * in here may wait for a worker while a copy of it is shed: it is dropped once parsed (see onInvite).
     */
    Optional<String> shed(InetAddress source, Optional<PresentedCertificate> certificate, String callId,
                          String callerTag, long cseq, ActiveConfig active, Supplier<Optional<ShedReason>> reason) {
        return shed(source, callId, callerTag, cseq, active, () -> active.peers().find(source, certificate), reason);
    }

    /** As the method above, for a new INVITE whose peer is {@code peerOf}'s (asked only when it matters). */
    private Optional<String> shed(InetAddress source, String callId, String callerTag, long cseq, ActiveConfig active,
                                  Supplier<Optional<PeerConfig>> peerOf, Supplier<Optional<ShedReason>> reason) {
        if (services.calls().inProgress(callId, callerTag) || services.dialogs().find(callId, callerTag).isPresent()) {
            return Optional.empty();
        }
        CallIdentity identity = new CallIdentity(callId, callerTag, cseq);
        Optional<CallRegistry.Refused> refused = services.calls().refusedLately(identity);
        if (refused.isPresent()) {
            refused.get().shedReason().ifPresent(copy -> services.metrics().requestAbsorbed(SHED_INVITE));
            return refused.get().shedReason();
        }
        Optional<PeerConfig> peer = peerOf.get();
        if (peer.isEmpty()) {
            return Optional.empty();
        }
        Optional<ShedReason> shed = reason.get();
        if (shed.isEmpty()) {
            return Optional.empty();
        }
        String peerId = peer.get().id();
        String text = shed.get().text();
        services.calls().refused(identity, Optional.of(text));
        callLog.info("call={} peer={} admission=shed({}) final=503", LogFields.value(callId), peerId,
                shed.get().tag());
        services.metrics().callShed(peerId, shed.get().tag());
        Instant now = Instant.now();
        // Shed before parsing: the source and the identity are known, the numbers are not.
        services.records().write(new CallRecord(callId, active.config().instanceId(),
                CallRecord.Caller.at(source.getHostAddress(), callerTag, cseq < 0 ? null : cseq), peerId,
                peer.get().group().orElse(null), "shed",
                shed.get().tag(), List.of(), List.of(), List.of(), List.of(), 0, now, null, null, 0L, null, now, 0,
                Response.SERVICE_UNAVAILABLE, RecordFields.reason("SIP", Response.SERVICE_UNAVAILABLE, text),
                "failed", "gateway", null));
        return Optional.of(text);
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
        } else if (client.getApplicationData() instanceof JainSipCallLegs.CarrierLeg leg) {
            leg.call().onResponse(leg, response);
        } else if (client.getApplicationData() instanceof InDialogForwarder.Forwarded forwarded) {
            forwarded.relay(response);
        } else if (client.getApplicationData() instanceof OptionsProber.Probe probe) {
            probe.answered(response);
        }
    }

    /** A response no client transaction knows (the stack's valve hands it over without its linear search). */
    public void processStrayResponse(Response response) {
        strays.relay(response);
    }

    @Override
    public void processTimeout(TimeoutEvent event) {
        if (!event.isServerTransaction() && event.getClientTransaction() != null) {
            Object data = event.getClientTransaction().getApplicationData();
            if (data instanceof JainSipCallLegs.CarrierLeg leg) {
                leg.call().onTransactionTimeout(leg);
            } else if (data instanceof InDialogForwarder.Forwarded forwarded) {
                forwarded.timedOut();
            } else if (data instanceof OptionsProber.Probe probe) {
                probe.timedOut();
            }
        }
    }

    @Override
    public void processIOException(IOExceptionEvent event) {
        throttled.log(Level.INFO, "I/O error with " + event.getHost() + ":" + event.getPort() + "/"
                + event.getTransport());
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
