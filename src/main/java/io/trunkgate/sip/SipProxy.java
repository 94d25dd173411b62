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
import io.trunkgate.config.SipListener;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.jainsip.ReceivedMessageParser;
import io.trunkgate.sip.transaction.IncomingRequest;
import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.RequestHandler;
import io.trunkgate.sip.transaction.Scheduler;
import io.trunkgate.sip.transaction.ServerTransaction;
import io.trunkgate.sip.transaction.StrayResponseHandler;
import io.trunkgate.sip.transaction.TransactionLayer;
import io.trunkgate.sip.transaction.TransactionTimers;
import io.trunkgate.sip.transaction.Wire;
import io.trunkgate.sip.transport.Destination;
import io.trunkgate.sip.transport.Inbound;
import io.trunkgate.sip.transport.InboundMessage;
import io.trunkgate.sip.transport.SipTransports;
import java.util.concurrent.Executor;
import javax.sip.message.Message;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The stateful proxy's entry point, on the call's loop: parses what the transports deliver (through the message
 * model's {@link ReceivedMessageParser}), hands it to the transaction layer, and sorts the requests that match no
 * transaction to the handler for them — new INVITEs, CANCELs, in-dialog requests — answering the rest statelessly.
 */
public final class SipProxy implements Inbound, RequestHandler, StrayResponseHandler, NewCallGate {

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
    /** What each call works with (admission, routing, records, metrics), each on its own loop's time. */
    private final CallServices callServices;
    private final ReceivedMessageParser parser = new ReceivedMessageParser();
    private final OwnListeners listeners;
    private final Wire wire;
    private final TransactionLayer layer;
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
     * @param timers    the transaction layer's timers ({@code sip.transaction-linger} bounds how long a finished
     *                  transaction absorbs copies)
     * @param resolving where a host name the gateway sends to is resolved, off the SIP loops
     */
    public SipProxy(ProxyServices services, OverloadController overload, LongSupplier nanoClock,
                    TransactionTimers timers, Executor resolving) {
        this.services = services;
        this.callServices = CallServices.of(services);
        this.listeners = new OwnListeners(services.config().get().config().sip().listeners());
        this.wire = new TransportWire(services.transports(), resolving);
        this.layer = TransactionLayer.create(wire, Scheduler.perLoop(services.transports()::loopFor), timers, this,
                this);
        this.overload = overload;
        this.refusals = new SourceAnswerBudget(REFUSALS_PER_SOURCE_PER_SECOND, MAX_TRACKED_SOURCES, nanoClock);
        this.validation = new RequestValidation(services.messages(), services.config().get().config().sip().limits());
        this.inDialog = new InDialogForwarder(services.dialogs(), services.messages(), services.metrics(),
                new TransactionDialogStack(listeners, layer, wire, services.transports(), services.messages()),
                new DialogParties(services.config(), services.resolver()));
        this.strays = new StrayResponseRelay(listeners, wire, services.dialogs(), services.metrics());
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

    /** The gateway's transactions: health probes are sent in them too. */
    public TransactionLayer transactions() {
        return layer;
    }

    /** The gateway's own listeners, as its messages name them. */
    public OwnListeners listeners() {
        return listeners;
    }

    /** A message received, on its call's loop: parsed, then to its transaction, or to be handled here. */
    @Override
    public void received(InboundMessage message) {
        Message parsed = parse(message);
        if (parsed instanceof Request request) {
            layer.received(request, source(message));
        } else if (parsed instanceof Response response) {
            layer.received(response, source(message));
        }
    }

    /**
     * The message model's reading of {@code message}, or null when there is none: a broken request is answered 400
     * (within its source's budget) the way it came, a broken response is dropped.
     */
    Message parse(InboundMessage message) {
        return parser.parse(message.bytes(), message.remote(), message.local(), message.transport().name(),
                message.certificate(), answer -> services.transports().send(back(message), answer));
    }

    private static Peer source(InboundMessage message) {
        return new Peer(message.transport(), message.remote(), message.flow().orElse(null));
    }

    private static Destination back(InboundMessage message) {
        return message.flow().map(Destination::back)
                .orElseGet(() -> Destination.of(message.transport(), message.remote()));
    }

    /** An answer of the gateway's own to a request it parsed but handed to no transaction (StartingGate). */
    void answerStatelessly(InboundMessage message, Response response) {
        services.transports().send(back(message), JainSip.encode(response,
                message.transport().name()));
    }

    @Override
    public void newRequest(IncomingRequest incoming) {
        Request request = incoming.request();
        try {
            String method = request.getMethod();
            services.metrics().requestReceived(method);
            Optional<RequestRefusal> problem = validation.problem(request);
            if (problem.isPresent()) {
                refuse(incoming, problem.get());
            } else if (Request.CANCEL.equals(method)) {
                onCancel(incoming);
            } else if (SipMessages.toTag(request) != null) {
                onInDialog(incoming);
            } else if (Request.INVITE.equals(method)) {
                onInvite(incoming);
            } else if (refusals.allow(SipMessages.source(request))) {
                int status = Request.OPTIONS.equals(method) ? Response.OK : Response.METHOD_NOT_ALLOWED;
                Response response = services.messages().response(status, request);
                response.addHeader(services.messages().headers().createAllowHeader(ALLOWED_METHODS));
                incoming.answerStatelessly(response);
            }
        } catch (Exception e) {
            throttled.log(Level.WARN, request.getMethod() + " from " + SipMessages.source(request) + " not handled", e);
        }
    }

    /** An ACK no transaction took: for a 2xx, relayed within its dialog; any other, absorbed. */
    @Override
    public void ack(Request ack, Peer source) {
        services.metrics().requestReceived(Request.ACK);
        try {
            Optional<RequestRefusal> problem = validation.problem(ack);
            if (problem.isPresent()) {
                services.metrics().requestRefused(problem.get().tag);
                return;
            }
            inDialog.forwardAck(ack);
        } catch (Exception e) {
            throttled.log(Level.WARN, "ACK from " + SipMessages.source(ack) + " not handled", e);
        }
    }

    @Override
    public void noAck(ServerTransaction transaction) {
        // the caller never acknowledged a final failure: the call ended with it, nothing is left to do
    }

    @Override
    public void transportError(ServerTransaction transaction, Throwable cause) {
        throttled.log(Level.INFO, "response to " + transaction.method() + " not sent to "
                + transaction.source().address() + ": " + cause);
    }

    /** A request that failed validation: counted, and answered statelessly within the source's budget. */
    private void refuse(IncomingRequest incoming, RequestRefusal problem) throws Exception {
        Request request = incoming.request();
        services.metrics().requestRefused(problem.tag);
        if (problem.status != 0 && refusals.allow(SipMessages.source(request))) {
            incoming.answerStatelessly(validation.answer(problem, request));
        }
    }

    /**
     * A request with a To tag: relayed within a dialog the gateway admitted, else refused statelessly (no
     * transaction, so a refused INVITE's answer is not retransmitted at its sender).
     */
    private void onInDialog(IncomingRequest incoming) throws Exception {
        Request request = incoming.request();
        if (!SipMessages.hasHopsLeft(request)) {
            incoming.answerStatelessly(services.messages().response(Response.TOO_MANY_HOPS, request));
            return;
        }
        InDialogForwarder.Relay relay = inDialog.route(request, SipMessages.source(request),
                JainSip.callerCertificate(request));
        if (relay.refusal() != null) {
            services.metrics().requestRefused(relay.refusal().tag);
            log.debug("{} refused: {}", request.getMethod(), relay.refusal().tag);
            if (refusals.allow(SipMessages.source(request))) {
                RequestRefusal refusal = relay.refusal();
                incoming.answerStatelessly(refusal.reason == null
                        ? services.messages().response(refusal.status, request)
                        : services.messages().refusal(refusal.status, request, refusal.reason, 0));
            }
            return;
        }
        inDialog.forward(relay, incoming.transaction());
    }

    private void onInvite(IncomingRequest incoming) throws Exception {
        Request request = incoming.request();
        ActiveConfig active = services.config().get();
        InetAddress source = SipMessages.source(request);
        PeerIdentification.Identified caller = identification.identify(request, source,
                JainSip.callerCertificate(request), active);
        if (caller instanceof PeerIdentification.Answer answer) {
            if (!answer.budgeted() || refusals.allow(source)) {
                incoming.answerStatelessly(answer.response());
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
                incoming.answerStatelessly(services.messages().refusal(code, request, "unknown source", 0));
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
            // Let in before it was parsed, it waited for its call's loop while a copy of it was shed: the call is over,
            // with its record, and its caller holds that 503 (a copy from the same transaction needs no other, and
            // the caller's INVITE client transaction ignores any beside re-sending the ACK). Had the 503 been
            // lost, the caller sends the INVITE again, and that copy hears the 503 again before it is parsed.
            services.metrics().requestAbsorbed(SHED_INVITE);
            return;
        }
        if (digest.isPresent() && shedAuthenticated(incoming, identity, source, peer.get(), active)) {
            return;
        }
        ServerTransaction server = incoming.transaction();
        if (!SipMessages.hasHopsLeft(request)) {
            server.respond(services.messages().refusal(Response.TOO_MANY_HOPS, request, "Max-Forwards exhausted", 0));
            return;
        }
        if (digest.isPresent()) {
            // Checked once the transaction absorbs the INVITE's retransmissions: each copy is not a replay.
            useCredentials(digest.get(), incoming, server, active, identity, source, peer.get());
            return;
        }
        startCall(incoming, server, active, identity, source, peer.get());
    }

    /**
     * An INVITE accepted on digest credentials: the call starts if this is their nonce and nonce-count's first use
     * in the fleet, else the INVITE is challenged again. Redis's answer is taken up on the call's loop.
     */
    private void useCredentials(DigestCheck.Accepted accepted, IncomingRequest incoming, ServerTransaction server,
                                ActiveConfig active, CallIdentity identity, InetAddress source, PeerConfig peer) {
        Request request = server.request();
        identification.firstUse(accepted, active).whenCompleteAsync((first, error) -> {
            try {
                if (error != null) {
                    throttled.log(Level.WARN, "INVITE from " + source + ": credentials' use not recorded", error);
                    server.respond(services.messages().refusal(Refusals.INTERNAL_ERROR.status(), request,
                            Refusals.INTERNAL_ERROR.reason(), 0));
                } else if (first) {
                    startCall(incoming, server, active, identity, source, peer);
                } else {
                    server.respond(identification.replayed(request, peer, source));
                }
            } catch (Exception e) {
                throttled.log(Level.WARN, "INVITE from " + source + " not handled", e);
            }
        }, services.transports().loopFor(identity.callId()));
    }

    /**
     * A peer known by its credentials only once its INVITE was parsed meets overload control now, as the others do
     * before parsing ({@link #shed}): answered 503 statelessly if shed.
     */
    private boolean shedAuthenticated(IncomingRequest incoming, CallIdentity identity, InetAddress source,
                                      PeerConfig peer, ActiveConfig active) throws Exception {
        Optional<String> shed = shed(source, identity.callId(), identity.fromTag(), identity.cseq(), active,
                () -> Optional.of(peer),
                () -> overload.shed(services.calls().size(), services.dialogs().full(), Duration.ZERO));
        if (shed.isPresent()) {
            incoming.answerStatelessly(services.messages().refusal(Response.SERVICE_UNAVAILABLE, incoming.request(),
                    shed.get(), 1));
        }
        return shed.isPresent();
    }

    private void startCall(IncomingRequest incoming, ServerTransaction server, ActiveConfig active,
                           CallIdentity identity, InetAddress source, PeerConfig peer) throws Exception {
        Request request = incoming.request();
        Transport came = incoming.source().transport();
        SipListener inbound = listeners.at(came, JainSip.local(request));
        CallLegs legs = new TransactionCallLegs(server, inbound, listeners, layer, wire, services.messages(),
                udpSizeRule, active.config().sip().limits().pathMtu());
        Optional<Challenge> challenge = services.calls().takeChallenge(identity, peer.id(),
                SipMessages.hasCredentials(request));
        InviteCall call = new InviteCall(
                callServices.on(CallTime.onLoop(services.transports().loopFor(identity.callId()))), active, request,
                identity, new InetSocketAddress(source, SipMessages.sourcePort(request)), legs, peer, challenge);
        if (services.dialogs().live(call.identity().callId(), call.identity().fromTag())
                || !services.calls().add(call)) {
            // RFC 3261 §8.2.2.2: the Call-ID and From tag of a call in progress, outside its dialog
            challenge.ifPresent(taken -> taken.over().run());
            services.metrics().requestRefused(RequestRefusal.MERGED_REQUEST.tag);
            server.respond(services.messages().refusal(Refusals.CALL_IN_PROGRESS.status(), request,
                    Refusals.CALL_IN_PROGRESS.reason(), 0));
            return;
        }
        try {
            server.respond(services.messages().response(Response.TRYING, request));
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
     * in here may wait for its call's loop while a copy of it is shed: it is dropped once parsed (see onInvite).
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

    private void onCancel(IncomingRequest incoming) throws Exception {
        Request cancel = incoming.request();
        // Only the caller may cancel its call: a CANCEL names the INVITE by Call-ID and branch, both on the wire.
        Optional<InviteCall> call = services.calls().find(cancel)
                .filter(c -> c.callerSource().equals(SipMessages.source(cancel)));
        ServerTransaction server = incoming.transaction();
        if (call.isEmpty()) {
            server.respond(services.messages().response(Response.CALL_OR_TRANSACTION_DOES_NOT_EXIST, cancel));
            return;
        }
        server.respond(services.messages().response(Response.OK, cancel));
        call.get().cancel();
    }

    /** A response no client transaction knows. */
    @Override
    public void stray(Response response, Peer source) {
        strays.relay(response);
    }
}
