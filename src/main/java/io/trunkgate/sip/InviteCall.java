package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.gateway.ActiveConfig;
import io.trunkgate.gateway.CallAdmission;
import io.trunkgate.gateway.CallAdmission.Verdict;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.records.CallRecord;
import io.trunkgate.route.CallRouting;
import io.trunkgate.route.RerouteReason;
import io.trunkgate.route.RoutingStep;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.ClientTransaction;
import javax.sip.ListeningPoint;
import javax.sip.ServerTransaction;
import javax.sip.SipProvider;
import javax.sip.address.SipURI;
import javax.sip.header.CallIdHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied INVITE, from its arrival to its final response upstream: admission, pacing for each carrier
 * attempt, forwarding, failover on the carrier's failure responses or silence, and CANCEL at any stage.
 * Events reach it from SIP workers, Redis replies and timers; its methods are synchronized so it sees them
 * one at a time.
 */
final class InviteCall {

    private static final Logger log = LoggerFactory.getLogger(InviteCall.class);
    private static final Logger callLog = LoggerFactory.getLogger("trunkgate.calls");

    private final ProxyServices services;
    private final ActiveConfig active;
    private final ServerTransaction server;
    /** The provider (listening address) the INVITE came in on: its Record-Route is the caller's way back. */
    private final SipProvider inboundProvider;
    private final Request request;
    private final PeerConfig peer;
    private final String key;
    private final String callId;
    private final String number;
    private final InetAddress callerSource;
    private final long arrivedNanos = System.nanoTime();
    private final Instant invitedAt = Instant.now();

    private CallRouting routing;
    private String admission = "pending";
    private Verdict verdict;
    private CarrierConfig carrier;
    private Dialog dialog;
    private Duration held = Duration.ZERO;
    /** When the current attempt started waiting for its carrier slot. */
    private long holdStartedNanos;
    private ClientTransaction client;
    /** Runs out after answer-timeout while the carrier is silent, then after ring-timeout once it responded. */
    private ScheduledFuture<?> attemptTimer;
    /** Any response from the carrier so far, 100 included: a CANCEL may be sent (RFC 3261 §9.1). */
    private boolean provisionalSeen;
    /** A 180/183 from the carrier: the ring-timeout phase. */
    private boolean ringing;
    private boolean timedOut;
    /** The To tag of the 2xx relayed upstream; once set, further 2xx (forks, retransmissions) are relayed too. */
    private String answerTag;
    private boolean cancelled;
    private boolean cancelSent;
    private boolean finalSent;
    private Response lastFailure;

    InviteCall(ProxyServices services, ActiveConfig active, ServerTransaction server, SipProvider inboundProvider,
               PeerConfig peer) {
        this.services = services;
        this.inboundProvider = inboundProvider;
        this.active = active;
        this.server = server;
        this.request = server.getRequest();
        this.peer = peer;
        this.key = CallRegistry.key(request);
        this.callId = ((CallIdHeader) request.getHeader(CallIdHeader.NAME)).getCallId();
        this.number = request.getRequestURI() instanceof SipURI uri && uri.getUser() != null ? uri.getUser() : "";
        this.callerSource = SipMessages.source(request);
    }

    String key() {
        return key;
    }

    InetAddress callerSource() {
        return callerSource;
    }

    void start() {
        services.calls().add(this);
        services.admission().admit(active, peer, callId).whenComplete((verdict, error) -> {
            if (error != null) {
                log.error("call={} admission failed unexpectedly", callId, error);
                rejectAfterError();
            } else {
                onVerdict(verdict);
            }
        });
    }

    private synchronized void onVerdict(Verdict verdict) {
        this.verdict = verdict;
        admission = describe(verdict);
        if (finalSent) {
            return;
        }
        if (!verdict.admitted()) {
            reject(verdict);
            return;
        }
        routing = new CallRouting(callId, number, active.routes(), services.pacer(), services.rerouteHook().get());
        if (cancelled) {
            routing.cancel();
        }
        holdStartedNanos = System.nanoTime();
        routing.start().whenComplete(this::onStep);
    }

    private void reject(Verdict verdict) {
        var settings = active.config().admission();
        if (verdict.decision().isEmpty()) {
            sendOwn(settings.rejectCode(), "admission unavailable: redis unreachable", 0);
            return;
        }
        AdmissionDecision decision = verdict.decision().get();
        switch (decision.outcome()) {
            case BLOCKED -> sendOwn(settings.blockedCode(), "peer " + peer.id() + " is blocked",
                    CallAdmission.retryAfterSeconds(decision.retryAfter()));
            case TOO_HEAVY -> sendOwn(settings.rejectCode(), "call weight exceeds limit "
                    + decision.refusedLimit().map(Object::toString).orElse("?"), 0);
            default -> sendOwn(settings.rejectCode(), "CPS limit " + decision.refusedLimit().map(Object::toString)
                            .orElse("?") + " of " + decision.refusedBy().map(Object::toString).orElse(peer.id()),
                    CallAdmission.retryAfterSeconds(decision.retryAfter()));
        }
    }

    private synchronized void onStep(RoutingStep step, Throwable error) {
        if (error != null) {
            log.error("call={} routing failed unexpectedly", callId, error);
            rejectAfterError();
            return;
        }
        if (finalSent || cancelled) {
            return;
        }
        if (step instanceof RoutingStep.Send send) {
            forward(send);
        } else if (step instanceof RoutingStep.Cancelled) {
            sendOwn(Response.REQUEST_TERMINATED, "cancelled", 0);
        } else if (step instanceof RoutingStep.Exhausted exhausted) {
            if (lastFailure != null && exhausted.retryAfter().isEmpty()) {
                sendFinal(upstream(lastFailure));
            } else if (routing.tried().isEmpty()) {
                sendOwn(Response.NOT_FOUND, "no route for " + number, 0);
            } else if (exhausted.retryAfter().isPresent() || !timedOut) {
                sendOwn(Response.SERVICE_UNAVAILABLE, "no carrier slot within max-wait",
                        exhausted.retryAfter().map(CallAdmission::retryAfterSeconds).orElse(0L));
            } else {
                sendOwn(Response.SERVICE_UNAVAILABLE, "no response from any carrier within answer-timeout", 0);
            }
        }
    }

    private void forward(RoutingStep.Send send) {
        carrier = send.carrier();
        held = held.plus(send.held());
        provisionalSeen = false;
        ringing = false;
        try {
            String transport = carrier.uri().transport().name();
            SipProvider outbound = services.providerFor(transport, carrier.uri().host());
            SipURI target = services.messages().addresses().createSipURI(number.isEmpty() ? null : number,
                    carrier.uri().host());
            target.setPort(carrier.uri().port());
            target.setTransportParam(carrier.uri().transport().sipName());
            String inbound = ((ViaHeader) request.getHeader(ViaHeader.NAME)).getTransport().toUpperCase(Locale.ROOT);
            ListeningPoint outboundPoint = SipMessages.listeningPoint(outbound, transport);
            // One Record-Route when the call leaves as it came; two when it changes transport or address family
            // (RFC 5658), so that each side reaches the gateway in its own way.
            List<ListeningPoint> recordRoutes = inbound.equals(transport) && inboundProvider == outbound
                    ? List.of(outboundPoint)
                    : List.of(SipMessages.listeningPoint(inboundProvider, inbound), outboundPoint);
            Request out = services.messages().forwarded(request, target, outbound, transport, recordRoutes);
            // A new call goes where routing says and nowhere else: a Route the caller preloaded is dropped.
            out.removeHeader(RouteHeader.NAME);
            if (dialog == null) {
                dialog = services.dialogs().open(request, callerSource, SipMessages.sourcePort(request), peer.id());
            }
            dialog.carrierAttempt(Hop.of(carrier.uri().host(), carrier.uri().port()), recordRoutes.size());
            client = outbound.getNewClientTransaction(out);
            client.setApplicationData(this);
            client.sendRequest();
            ClientTransaction attempt = client;
            attemptTimer = services.timers().schedule(() -> onSilence(attempt),
                    carrier.answerTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("call={} cannot forward to {}: {}", callId, carrier.id(), e.toString());
            failover(RerouteReason.FAILURE_RESPONSE, Response.SERVICE_UNAVAILABLE);
        }
    }

    synchronized void onResponse(ClientTransaction from, Response response) {
        int status = response.getStatusCode();
        if (dialog != null) {
            dialog.carrierResponse(response, SipMessages.source(response));
        }
        if (status / 100 == 2 && (from != client || (finalSent && answerTag == null))) {
            // A carrier leg answered after the call went elsewhere or ended: close it, or it stays up (and billed).
            hangUp(from, response);
            return;
        }
        if (status / 100 == 2 && finalSent) {
            // Another branch of a fork answered too, or the answer was retransmitted: every 2xx goes upstream
            // (RFC 3261 §16.7 step 5); the caller ACKs each and hangs up those it does not want.
            relayStateless(response);
            return;
        }
        if (from != client) {
            return;
        }
        if (status < 200) {
            provisionalSeen = true;
            if (status > Response.TRYING && !ringing) {
                // The callee is being reached (180/183): from now on the call may ring up to ring-timeout (like
                // Kamailio's fr_inv_timer), and failover on silence is over. A 100 alone does not count: a
                // carrier proxy that accepted the call but cannot route it sends just that.
                ringing = true;
                stopAttemptTimer();
                ClientTransaction attempt = client;
                attemptTimer = services.timers().schedule(() -> onRingTimeout(attempt),
                        carrier.ringTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
            if (cancelled && !cancelSent) {
                sendCancel();
            }
            if (status != Response.TRYING && !finalSent) {
                relayProvisional(response);
            }
            return;
        }
        stopAttemptTimer();
        if (status < 300) {
            answerTag = SipMessages.toTag(response);
            if (dialog != null) {
                dialog.confirm(record(status, Instant.now()));
            }
            sendFinal(upstream(response));
            return;
        }
        if (!cancelled && status < 600 && carrier.failoverCodes().contains(status)) {
            lastFailure = response;
            failover(RerouteReason.FAILURE_RESPONSE, status);
            return;
        }
        sendFinal(upstream(response));
    }

    /** The client transaction gave up (Timer B) without any final response. */
    synchronized void onTransactionTimeout(ClientTransaction from) {
        if (from == client && !finalSent) {
            if (ringing) {
                onRingTimeout(from);
            } else {
                onSilence(from);
            }
        }
    }

    /** No 180/183 (nor a final answer) from the carrier within answer-timeout: it is not reaching the callee. */
    private synchronized void onSilence(ClientTransaction attempt) {
        if (attempt != client || finalSent || ringing) {
            return;
        }
        if (provisionalSeen && !cancelSent) {
            sendCancel();
        }
        if (cancelled) {
            sendOwn(Response.REQUEST_TERMINATED, "cancelled", 0);
        } else if (carrier.failoverOnTimeout()) {
            client = null;
            timedOut = true;
            failover(RerouteReason.TIMEOUT, 0);
        } else {
            sendOwn(Response.REQUEST_TIMEOUT, "no response from carrier " + carrier.id() + " within answer-timeout", 0);
        }
    }

    /** The call rang for ring-timeout without a final answer: cancelled at the carrier, no failover. */
    private synchronized void onRingTimeout(ClientTransaction attempt) {
        if (attempt != client || finalSent) {
            return;
        }
        if (!cancelSent) {
            sendCancel();
        }
        if (cancelled) {
            sendOwn(Response.REQUEST_TERMINATED, "cancelled", 0);
        } else {
            sendOwn(Response.REQUEST_TIMEOUT, "no final answer from carrier " + carrier.id() + " within ring-timeout",
                    0);
        }
    }

    private void failover(RerouteReason reason, int status) {
        cancelSent = false;
        holdStartedNanos = System.nanoTime();
        routing.failover(reason, status).whenComplete(this::onStep);
    }

    /** A CANCEL for this INVITE arrived (already answered 200 by the caller of this method). */
    synchronized void cancel() {
        if (finalSent || cancelled) {
            return;
        }
        cancelled = true;
        if (client == null) {
            if (routing != null) {
                routing.cancel();
                held = held.plus(Duration.ofNanos(System.nanoTime() - holdStartedNanos));
            }
            sendOwn(Response.REQUEST_TERMINATED, "cancelled", 0);
        } else if (provisionalSeen) {
            sendCancel();
        } else {
            // No CANCEL may go out before the carrier's first response (RFC 3261 §9.1), but the caller need not
            // wait for it: 487 now; the CANCEL follows that response, and a 2xx that comes instead is hung up.
            sendOwn(Response.REQUEST_TERMINATED, "cancelled", 0);
        }
    }

    synchronized boolean forwarded() {
        return dialog != null;
    }

    /** Drain: a call not yet forwarded gets 503 at once. */
    synchronized void abortHeld() {
        if (!finalSent && client == null) {
            sendOwn(Response.SERVICE_UNAVAILABLE, "gateway shutting down", 1);
            if (routing != null) {
                routing.cancel();
            }
        }
    }

    /** Shutdown: a call not yet forwarded gets 503; a forwarded one is cancelled at the carrier. */
    synchronized void abort() {
        if (finalSent) {
            return;
        }
        if (client == null) {
            sendOwn(Response.SERVICE_UNAVAILABLE, "gateway shutting down", 0);
            if (routing != null) {
                routing.cancel();
            }
        } else {
            cancelled = true;
            if (provisionalSeen) {
                sendCancel();
            }
        }
    }

    private void sendCancel() {
        try {
            Request cancel = client.createCancel();
            SipProvider outbound = services.providerFor(carrier.uri().transport().name(), carrier.uri().host());
            outbound.getNewClientTransaction(cancel).sendRequest();
            cancelSent = true;
        } catch (Exception e) {
            log.warn("call={} cannot send CANCEL to {}: {}", callId, carrier.id(), e.toString());
        }
    }

    private void relayProvisional(Response response) {
        try {
            server.sendResponse(SipMessages.relayed(response));
        } catch (Exception e) {
            log.debug("call={} provisional not relayed: {}", callId, e.toString());
        }
    }

    /**
     * The carrier's final response as it goes upstream: without the gateway's Via. A carrier that answers with
     * only that Via (a 487 copying the CANCEL's) gets an answer of the gateway's own with the same status.
     */
    private Response upstream(Response response) {
        Response relayed = SipMessages.relayed(response);
        if (relayed.getHeader(ViaHeader.NAME) != null) {
            return relayed;
        }
        try {
            Response own = services.messages().response(response.getStatusCode(), request);
            own.setReasonPhrase(response.getReasonPhrase());
            return own;
        } catch (Exception e) {
            return relayed;
        }
    }

    private void relayStateless(Response response) {
        try {
            inboundProvider.sendResponse(SipMessages.relayed(response));
        } catch (Exception e) {
            log.debug("call={} further 2xx not relayed: {}", callId, e.toString());
        }
    }

    /** ACKs a 2xx nobody upstream will take and ends that leg with a BYE of the gateway's own. */
    private void hangUp(ClientTransaction leg, Response answer) {
        try {
            String transport = leg.getRequest().getRequestURI() instanceof SipURI uri && uri.getTransportParam() != null
                    ? uri.getTransportParam().toUpperCase(Locale.ROOT) : "UDP";
            SipProvider outbound = services.providerFor(transport, ((SipURI) leg.getRequest().getRequestURI()).getHost());
            List<javax.sip.address.Address> routes = dialog == null ? List.of() : dialog.otherRoutes(true);
            outbound.sendRequest(services.messages().inAnsweredDialog(Request.ACK, leg.getRequest(), answer, routes,
                    outbound, transport));
            outbound.getNewClientTransaction(services.messages().inAnsweredDialog(Request.BYE, leg.getRequest(),
                    answer, routes, outbound, transport)).sendRequest();
            log.info("call={} late answer from {} closed with ACK and BYE", callId,
                    carrier == null ? "-" : carrier.id());
        } catch (Exception e) {
            log.warn("call={} late answer not closed: {}", callId, e.toString());
        }
    }

    private void rejectAfterError() {
        synchronized (this) {
            if (!finalSent) {
                sendOwn(Response.SERVER_INTERNAL_ERROR, "internal error", 0);
            }
        }
    }

    private void sendOwn(int status, String reason, long retryAfterSeconds) {
        try {
            sendFinal(services.messages().refusal(status, request, reason, retryAfterSeconds));
        } catch (Exception e) {
            log.warn("call={} cannot build {} response: {}", callId, status, e.toString());
            finish(status);
        }
    }

    private void sendFinal(Response response) {
        if (finalSent) {
            return;
        }
        finalSent = true;
        stopAttemptTimer();
        // Accounted before it is sent: whoever gets the answer and then looks at metrics or records sees the call.
        finish(response.getStatusCode());
        try {
            server.sendResponse(response);
        } catch (Exception e) {
            log.warn("call={} final response {} not sent: {}", callId, response.getStatusCode(), e.toString());
        }
    }

    private void finish(int status) {
        finalSent = true;
        services.calls().remove(this);
        if (dialog == null || !dialog.confirmed()) {
            if (dialog != null) {
                services.dialogs().remove(dialog, "failed");
            }
            services.records().write(record(status, null).ended(Instant.now(), "failed"));
        }
        callLog.info("call={} peer={} admission={} carrier={} held={}ms reroutes={} final={} took={}ms",
                callId, peer.id(), admission, carrier == null ? "-" : carrier.id(), held.toMillis(),
                routing == null ? "[]" : routing.reroutes(), status,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - arrivedNanos));
        boolean duplicate = verdict != null && verdict.decision()
                .map(d -> d.outcome() == AdmissionDecision.Outcome.DUPLICATE).orElse(false);
        if (verdict != null && verdict.admitted() && !duplicate) {
            // A call offered again (a 407 challenge answered, a retransmission) is one call, counted once.
            services.metrics().callAdmitted(peer.id());
        } else if (verdict != null && !verdict.admitted()) {
            services.metrics().callRejected(peer.id(), verdict.decision()
                    .map(d -> d.outcome().name().toLowerCase(Locale.ROOT)).orElse("redis_unavailable"));
        }
        if (carrier != null) {
            services.metrics().callSent(carrier.id(), held);
        }
    }

    /** The call record so far: everything but its end ({@code answeredAt} null for a call not answered). */
    private CallRecord record(int status, Instant answeredAt) {
        String outcome = verdict == null ? "pending" : verdict.decision().map(d -> switch (d.outcome()) {
            case ADMITTED -> "admitted";
            case DUPLICATE -> "duplicate";
            case BLOCKED -> "blocked";
            case LIMITED, TOO_HEAVY -> "rejected";
        }).orElse(verdict.admitted() ? "admitted" : "redis-unavailable");
        String refusedBy = verdict == null ? null : verdict.decision()
                .filter(d -> d.refusedLimit().isPresent())
                .map(d -> d.refusedBy().map(Object::toString).orElse(peer.id()) + " " + d.refusedLimit().get())
                .orElse(null);
        return new CallRecord(callId, peer.id(), peer.group().orElse(null), outcome, refusedBy,
                routing == null ? List.of() : routing.tried(), routing == null ? List.of() : routing.reroutes(),
                held.toMillis(), invitedAt, answeredAt, null, 0, status, null, active.config().instanceId());
    }

    private void stopAttemptTimer() {
        if (attemptTimer != null) {
            attemptTimer.cancel(false);
            attemptTimer = null;
        }
    }

    private static String describe(Verdict verdict) {
        if (verdict.decision().isEmpty()) {
            return (verdict.admitted() ? "admitted" : "rejected") + "(redis-unavailable)";
        }
        AdmissionDecision d = verdict.decision().get();
        return switch (d.outcome()) {
            case ADMITTED -> "admitted";
            case DUPLICATE -> "admitted(duplicate)";
            case BLOCKED -> "rejected(blocked)";
            case LIMITED, TOO_HEAVY -> "rejected(" + d.refusedBy().map(Object::toString).orElse("?") + " "
                    + d.refusedLimit().map(Object::toString).orElse("?") + ")";
        };
    }
}
