package io.trunkgate.sip;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.health.Caller;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.overload.ShedReason;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.records.CallRecord;
import io.trunkgate.records.LiveCall;
import io.trunkgate.route.CallRouting;
import io.trunkgate.route.RerouteReason;
import io.trunkgate.route.RoutingStep;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.sip.Refusals.Refusal;
import io.trunkgate.throttle.LogFields;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.address.SipURI;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied INVITE, from its arrival to its final response upstream: admission, pacing for each carrier
 * attempt, forwarding, failover on the carrier's failure responses or silence, and CANCEL at any stage. Its
 * {@link CallPhase} says where it is. Its messages, timers, Redis replies and paced releases all come to it
 * on its Call-ID's event loop ({@link CallTime#events}); its methods are synchronized all the same, for an
 * operator's hangup and a shutdown, which come from other threads. It reaches the SIP stack through its {@link CallLegs} only,
 * and reads time and runs its timers on {@link CallServices#time}.
 */
final class InviteCall {

    private static final Logger log = LoggerFactory.getLogger(InviteCall.class);
    private static final Logger callLog = LoggerFactory.getLogger("trunkgate.calls");
    /**
     * How much longer than the call's own answer-timeout and ring-timeout its INVITE's transaction waits for a
     * provisional response (Timer C): the ring timer is armed just after a 180 restarts Timer C, on the same loop.
     */
    private static final Duration TIMER_C_BEYOND_CALL = Duration.ofSeconds(30);
    /** How long a CANCELled INVITE waits for its final response: 64*T1 (RFC 3261 §9.1). */
    static final Duration CANCEL_UNANSWERED = Duration.ofMillis(64 * 500);

    private final CallServices services;
    private final ActiveConfig active;
    private final CallLegs legs;
    private final Request request;
    private final PeerConfig peer;
    private final String key;
    private final CallIdentity identity;
    /**
     * The identity the call is admitted and leased under: its own, or for a retry after a challenge the first
     * INVITE's ({@link Challenge}).
     */
    private final CallIdentity counted;
    /** The challenge this INVITE retries after, or empty for a call of its own. */
    private final Optional<Challenge> challenge;
    /** The Call-ID as log lines write it: quoted and escaped when it could pass for other fields. */
    private final String logId;
    private final String number;
    private final InetAddress callerSource;
    private final int callerPort;
    private final long arrivedNanos;
    private final Instant invitedAt;

    private CallPhase phase = CallPhase.ADMITTING;
    /** The caller cancelled, or shutdown cancels the call at its carrier. */
    private boolean cancelled;
    /** A CANCEL went to the current carrier attempt. */
    private boolean cancelSent;
    /** An attempt ended for the carrier's silence (for the answer when no carrier is left). */
    private boolean timedOut;
    private CallRouting routing;
    /** The carriers to try, looked up once at the start (the first one's slot may come with the admission). */
    private List<CarrierConfig> chain = List.of();
    /** The first carrier's slot, asked for with the admission (one Redis call for both); empty: paced later. */
    private Optional<SlotRequest> firstSlot = Optional.empty();
    private String admission = "pending";
    private AdmissionVerdict verdict;
    private CarrierConfig carrier;
    /** The carrier's address the current attempt went to, as routing chose it (carrier health knows it so). */
    private CarrierAddress target;
    /** Where the current attempt's INVITE went: {@link #target}, or over TCP when too big for UDP (its CANCEL too). */
    private CarrierAddress sentTo;
    private Dialog dialog;
    private Duration held;
    /** When the current attempt started waiting for its carrier slot. */
    private long holdStartedNanos;
    /** The current carrier attempt; null before the first and while routing picks the next. */
    private CallLegs.Leg client;
    /** Runs out after answer-timeout while the carrier is silent, then after ring-timeout once it rings. */
    private ScheduledFuture<?> attemptTimer;
    /** The To tag of the 2xx relayed upstream; once set, further 2xx (forks, retransmissions) are relayed too. */
    private String answerTag;
    private Response lastFailure;
    /** Where the INVITE came from and its numbers, for the call record (the first INVITE's, after a challenge). */
    private final CallRecord.Caller caller;
    /** Each INVITE sent to a carrier, in order (after a challenge, the challenged ones first). */
    private final List<RecordFields.Attempt> attempts;
    /** Carriers' shadow pacing and caps that would have refused an attempt ("carrier:x max-wait"). */
    private final List<String> carrierWouldRefuse;
    /** When the first provisional response above 100 went to the caller (post-dial delay), or 0. */
    private long ringingNanos;
    /**
     * Who ended the call before an answer: {@code caller} (a CANCEL), {@code gateway} (its own final response, a
     * shutdown); null while neither did, so a carrier's final failure is the callee's.
     */
    private String hungUpBy;
    /** The Reason header(s) of the final response upstream. */
    private String finalReason;
    /** Attempts left while their carrier had sent nothing, with where each went: a provisional still gets a CANCEL. */
    private final Map<CallLegs.Leg, LeftAttempt> leftSilent = new HashMap<>(2);

    /** Where an attempt the call left went: its carrier and the address. */
    private record LeftAttempt(String carrierId, CarrierAddress address) {
    }

    /**
     * The caller's INVITE {@code request}, whose identity is {@code identity} ({@link CallIdentity#of}), from
     * {@code peer} at {@code source}, answered on {@code legs}.
     */
    InviteCall(CallServices services, ActiveConfig active, Request request, CallIdentity identity,
               InetSocketAddress source, CallLegs legs, PeerConfig peer) {
        this(services, active, request, identity, source, legs, peer, Optional.empty());
    }

    /** As the other constructor, for the caller's retry after {@code challenge} when present: the same call. */
    InviteCall(CallServices services, ActiveConfig active, Request request, CallIdentity identity,
               InetSocketAddress source, CallLegs legs, PeerConfig peer, Optional<Challenge> challenge) {
        this.services = services;
        this.active = active;
        this.legs = legs;
        this.request = request;
        this.peer = peer;
        this.key = CallRegistry.key(request);
        this.identity = identity;
        this.challenge = challenge;
        this.logId = LogFields.value(identity.callId());
        this.number = request.getRequestURI() instanceof SipURI uri && uri.getUser() != null ? uri.getUser() : "";
        this.callerSource = source.getAddress();
        this.callerPort = source.getPort();
        this.counted = challenge.map(Challenge::counted).orElse(identity);
        this.arrivedNanos = challenge.map(Challenge::arrivedNanos).orElseGet(services.time()::nanoTime);
        this.invitedAt = challenge.map(Challenge::invitedAt).orElseGet(services.time()::now);
        this.caller = challenge.map(Challenge::caller)
                .orElseGet(() -> RecordFields.caller(request, identity, callerSource, callerPort));
        this.attempts = new ArrayList<>(challenge.map(Challenge::attempts).orElse(List.of()));
        this.carrierWouldRefuse = new ArrayList<>(challenge.map(Challenge::wouldRefuse).orElse(List.of()));
        this.held = challenge.map(Challenge::held).orElse(Duration.ZERO);
        this.verdict = challenge.map(Challenge::verdict).orElse(null);
        challenge.ifPresent(c -> admission = c.admission());
    }

    String key() {
        return key;
    }

    CallIdentity identity() {
        return identity;
    }

    /** The identity the call is admitted and leased under (see {@link #counted}). */
    CallIdentity counted() {
        return counted;
    }

    InetAddress callerSource() {
        return callerSource;
    }

    /** Where the call is now. */
    synchronized CallPhase phase() {
        return phase;
    }

    /** The only way the phase changes: {@link CallPhase#to} refuses a move its table does not have. */
    private void enter(CallPhase next) {
        phase = phase.to(next);
    }

    /** Starts the call, which the caller has added to the {@link CallRegistry}. */
    void start() {
        chain = active.routes().chain(number);
        if (challenge.isPresent()) {
            // the retry after a challenge: admitted with its first INVITE, it holds that one's leases
            routeAdmitted(Optional.empty());
            return;
        }
        // A capped carrier's lease must come before its slot, so its slot is not asked for here.
        firstSlot = CallRouting.firstCarrier(chain, services.routing().health())
                .filter(first -> first.maxConcurrent().isEmpty())
                .flatMap(services.routing().firstSlots());
        AdmissionRequest admission = active.admissionRequest(peer, identity.key());
        services.admission().admit(firstSlot.map(admission::withFirstSlot).orElse(admission),
                        active.config().admission().redisDown())
                .whenCompleteAsync((verdict, error) -> {
                    if (error != null) {
                        log.error("call={} admission failed unexpectedly", logId, error);
                        rejectAfterError();
                    } else {
                        onVerdict(verdict);
                    }
                }, services.time().events());
    }

    private synchronized void onVerdict(AdmissionVerdict verdict) {
        this.verdict = verdict;
        admission = AdmissionLabels.logText(verdict);
        Optional<Reservation> reserved = verdict.decision().flatMap(AdmissionDecision::firstSlot);
        boolean merged = AdmissionLabels.duplicate(verdict);
        if (phase == CallPhase.ENDED || merged) {
            reserved.filter(Reservation::reserved).ifPresent(slot -> firstSlot.get().giveBack(slot));
        }
        if (phase == CallPhase.ENDED) {
            services.leases().release(counted.key());
            return;
        }
        if (merged) {
            // the call this INVITE copies holds the leases and counts in the windows: nothing of it is touched
            sendOwn(Refusals.MERGED);
            return;
        }
        if (!verdict.admitted()) {
            sendOwn(Refusals.admission(verdict, active.config().admission(), peer.id()));
            return;
        }
        routeAdmitted(reserved);
    }

    /** The call is admitted: routing starts, with the first carrier's slot when the admission {@code reserved} it. */
    private synchronized void routeAdmitted(Optional<Reservation> reserved) {
        if (phase == CallPhase.ENDED) {
            return;
        }
        enter(CallPhase.ROUTING);
        CallServices.Routing inputs = services.routing();
        LeasedCarrierPacer pacer = new LeasedCarrierPacer(inputs.pacer(), services.leases(), counted.key());
        routing = new CallRouting(identity.callId(), number, active.routes(), chain, pacer,
                inputs.rerouteHook().get(), inputs.health(), inputs.resolver());
        holdStartedNanos = services.time().nanoTime();
        CompletionStage<RoutingStep> first = reserved.isEmpty() ? routing.start() : routing.start(
                new CallRouting.FirstHold(firstSlot.get().carrier(), pacer.hold(firstSlot.get().carrier(),
                        reserved.get())));
        first.whenCompleteAsync(this::onStep, services.time().events());
    }

    private synchronized void onStep(RoutingStep step, Throwable error) {
        if (error != null) {
            log.error("call={} routing failed unexpectedly", logId, error);
            rejectAfterError();
            return;
        }
        if (phase == CallPhase.ENDED || cancelled) {
            return;
        }
        if (step instanceof RoutingStep.Send send) {
            forward(send);
        } else if (step instanceof RoutingStep.Cancelled) {
            sendOwn(Refusals.CANCELLED);
        } else if (step instanceof RoutingStep.Exhausted exhausted) {
            Optional<Refusal> refusal = Refusals.exhausted(exhausted, lastFailure != null, !routing.tried().isEmpty(),
                    routing.skippedDown(), timedOut, number);
            if (refusal.isPresent()) {
                sendOwn(refusal.get());
            } else {
                sendFinal(services.messages().upstream(lastFailure, request));
            }
        }
    }

    private void forward(RoutingStep.Send send) {
        boolean firstAttempt = carrier == null;
        carrier = send.carrier();
        target = send.address();
        held = held.plus(send.held());
        try {
            CallLegs.Outgoing out = legs.toCarrier(request, number, carrier.id(), carrier.uri(), target);
            sentTo = out.to();
            if (dialog == null) {
                dialog = services.dialogs().open(request, counted, callerSource, callerPort, peer.id());
            }
            dialog.carrierAttempt(carrier.id(), Hop.of(target.ip(), target.port()), out.recordRoutes());
            enter(CallPhase.TRYING);
            // timed before the send: the carrier's answer can never seem quicker than the carrier was
            RecordFields.Attempt sending = new RecordFields.Attempt(carrier.id(), sentTo.label(),
                    send.held().toMillis(), carrier.shadowPacing() ? send.shadow().wouldWait().toMillis() : null,
                    services.time());
            client = legs.send(out, timerC(carrier), this);
            attempts.add(sending);
            noteShadow(send);
            if (firstAttempt) {
                long overhead = services.time().nanoTime() - holdStartedNanos - send.held().toNanos();
                services.metrics().admissionToSend(carrier.id(), Duration.ofNanos(Math.max(0, overhead)));
            }
            CallLegs.Leg attempt = client;
            attemptTimer = services.time().timers().schedule(() -> onSilence(attempt),
                    carrier.answerTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("call={} cannot forward to {} at {}: {}", logId, carrier.id(), target, e.toString());
            failover(RerouteReason.FAILURE_RESPONSE, Response.SERVICE_UNAVAILABLE);
        }
    }

    /** What the carrier's shadow pacing or max-concurrent would have done to this attempt: counted and recorded. */
    private void noteShadow(RoutingStep.Send send) {
        PacingResult.Shadow shadow = send.shadow();
        if (carrier.shadowPacing()) {
            services.metrics().shadowPacingDelay(carrier.id(), shadow.wouldWait());
        }
        if (shadow.overMaxWait()) {
            carrierWouldRefuse.add("carrier:" + carrier.id() + " max-wait");
        }
        if (shadow.overCap()) {
            carrierWouldRefuse.add("carrier:" + carrier.id() + " max-concurrent");
        }
    }

    /** Every shadow limit that would have refused this call: at admission, then at the carriers it went to. */
    private List<String> wouldRefuse() {
        List<String> all = new ArrayList<>(verdict == null ? List.of() : AdmissionLabels.wouldRefuse(verdict));
        all.addAll(carrierWouldRefuse);
        return all;
    }

    synchronized void onResponse(CallLegs.Leg from, Response response) {
        int status = response.getStatusCode();
        if (dialog != null && from == client) {
            // only the carrier the call is with defines the callee side: a leg left (its late 2xx hung up below)
            // must not become where the caller's BYE goes
            dialog.carrierResponse(response, SipMessages.source(response));
        }
        boolean ended = phase == CallPhase.ENDED;
        if (status / 100 == 2 && (from != client || (ended && answerTag == null))) {
            // A carrier leg answered after the call went elsewhere or ended: close it, or it stays up (and billed).
            leftSilent.remove(from);
            hangUp(from, response);
            return;
        }
        if (status / 100 == 2 && ended) {
            // Another branch of a fork answered too, or the answer was retransmitted: every 2xx goes upstream
            // (RFC 3261 §16.7 step 5); the caller ACKs each and hangs up those it does not want.
            relayStateless(response);
            return;
        }
        if (from != client || leftSilent.containsKey(from)) {
            cancelLeftSilent(from, status);
            return;
        }
        attempts.get(attempts.size() - 1).responded(status);
        if (status < 200) {
            onProvisional(response);
            return;
        }
        stopAttemptTimer();
        services.routing().health().answered(carrier, target, status, SipMessages.retryAfter(response),
                new Caller(peer.id(), number));
        if (status < 300) {
            answerTag = SipMessages.toTag(response);
            CallRecord answered = record(status, services.time().now());
            services.metrics().callSetUp(answered);
            if (dialog != null) {
                dialog.confirm(answered, answerTag);
                services.dialogs().sessionRefreshed(dialog, SipMessages.sessionExpires(response));
            }
            sendFinal(services.messages().upstream(response, request));
            return;
        }
        if (!ended && !cancelled && carrier.failsOverOn(status)) {
            lastFailure = response;
            failover(RerouteReason.FAILURE_RESPONSE, status);
            return;
        }
        sendFinal(services.messages().upstream(response, request));
    }

    private void onProvisional(Response response) {
        int status = response.getStatusCode();
        if (phase == CallPhase.TRYING) {
            enter(CallPhase.PROCEEDING);
        }
        if (status > Response.TRYING && phase == CallPhase.PROCEEDING) {
            // The callee is being reached (180/183): from now on the call may ring up to ring-timeout (like
            // Kamailio's fr_inv_timer), and failover on silence is over. A 100 alone does not count: a
            // carrier proxy that accepted the call but cannot route it sends just that.
            enter(CallPhase.RINGING);
            stopAttemptTimer();
            CallLegs.Leg attempt = client;
            attemptTimer = services.time().timers().schedule(() -> onRingTimeout(attempt),
                    carrier.ringTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
        if (cancelled && !cancelSent) {
            sendCancel();
        }
        if (status != Response.TRYING && phase != CallPhase.ENDED) {
            relayProvisional(response);
        }
    }

    /**
     * The least Timer C (RFC 3261 §16.8) of an INVITE to {@code carrier}: past the call's own timeouts there, so
     * answer-timeout and ring-timeout end the call, with their own answers and failover, never the transaction's.
     */
    static Duration timerC(CarrierConfig carrier) {
        Duration longest = carrier.ringTimeout().compareTo(carrier.answerTimeout()) > 0 ? carrier.ringTimeout()
                : carrier.answerTimeout();
        return longest.plus(TIMER_C_BEYOND_CALL);
    }

    /** The client transaction gave up (Timer B) without any final response. */
    synchronized void onTransactionTimeout(CallLegs.Leg from) {
        if (from == client && phase != CallPhase.ENDED) {
            if (phase == CallPhase.RINGING) {
                onRingTimeout(from);
            } else {
                onSilence(from);
            }
        }
    }

    /**
     * The leg's INVITE could not be sent (a connect refused, a TLS handshake failed): the carrier failed the call,
     * which goes to the next one at once.
     */
    synchronized void onTransportError(CallLegs.Leg from, Throwable cause) {
        if (from != client || phase == CallPhase.ENDED) {
            return;
        }
        log.warn("call={} cannot forward to {} at {}: {}", logId, carrier.id(), sentTo, cause.toString());
        stopAttemptTimer();
        if (cancelled) {
            sendOwn(Refusals.CANCELLED);
        } else {
            failover(RerouteReason.FAILURE_RESPONSE, Response.SERVICE_UNAVAILABLE);
        }
    }

    /** No 180/183 (nor a final answer) from the carrier within answer-timeout: it is not reaching the callee. */
    private synchronized void onSilence(CallLegs.Leg attempt) {
        if (attempt != client || phase == CallPhase.ENDED || phase == CallPhase.RINGING) {
            return;
        }
        if (phase == CallPhase.TRYING) {
            leaveSilent(attempt);
        }
        if (phase == CallPhase.PROCEEDING && !cancelSent) {
            sendCancel();
        }
        services.routing().health().timedOut(carrier, target);
        if (cancelled) {
            sendOwn(Refusals.CANCELLED);
        } else if (carrier.failoverOnTimeout()) {
            timedOut = true;
            failover(RerouteReason.TIMEOUT, 0);
        } else {
            sendOwn(new Refusal(Response.REQUEST_TIMEOUT,
                    "no response from carrier " + carrier.id() + " within answer-timeout", 0));
        }
    }

    /** The call rang for ring-timeout without a final answer: cancelled at the carrier, no failover. */
    private synchronized void onRingTimeout(CallLegs.Leg attempt) {
        if (attempt != client || phase == CallPhase.ENDED) {
            return;
        }
        if (!cancelSent) {
            sendCancel();
        }
        sendOwn(cancelled ? Refusals.CANCELLED : new Refusal(Response.REQUEST_TIMEOUT,
                "no final answer from carrier " + carrier.id() + " within ring-timeout", 0));
    }

    private void failover(RerouteReason reason, int status) {
        client = null;
        cancelSent = false;
        enter(CallPhase.ROUTING);
        holdStartedNanos = services.time().nanoTime();
        routing.failover(reason, status).whenCompleteAsync(this::onStep, services.time().events());
    }

    /** A CANCEL for this INVITE arrived (already answered 200 by the caller of this method). */
    synchronized void cancel() {
        cancel("caller");
    }

    /**
     * An operator ends the call before its answer: as the caller's CANCEL does (487 to the caller, a CANCEL to
     * the carrier), its record's {@code hungUpBy} {@code operator}. False when it already ended or was cancelled.
     */
    synchronized boolean hangUp() {
        return cancel(DialogTable.OPERATOR);
    }

    private boolean cancel(String by) {
        if (phase == CallPhase.ENDED || cancelled) {
            return false;
        }
        cancelled = true;
        hungUpBy = by;
        if (phase.beforeCarrier()) {
            if (routing != null) {
                routing.cancel();
                held = held.plus(Duration.ofNanos(services.time().nanoTime() - holdStartedNanos));
            }
            sendOwn(Refusals.CANCELLED);
        } else if (phase != CallPhase.TRYING) {
            sendCancel();
        } else {
            // No CANCEL may go out before the carrier's first response (RFC 3261 §9.1), but the caller need not
            // wait for it: 487 now; the CANCEL follows that response, and a 2xx that comes instead is hung up.
            // The carrier gets no further copy of the INVITE.
            legs.stopRetransmitting(client);
            sendOwn(Refusals.CANCELLED);
        }
        return true;
    }

    /** The call as an operator lists it, or empty once its final answer is out (then its dialog, if any, is). */
    synchronized Optional<LiveCall> live() {
        if (phase == CallPhase.ENDED) {
            return Optional.empty();
        }
        return Optional.of(new LiveCall(OperatorCalls.id(counted), peer.id(), carrier == null ? null : carrier.id(),
                caller.fromUser(), number, phase.name().toLowerCase(Locale.ROOT), invitedAt, null));
    }

    synchronized boolean forwarded() {
        return dialog != null;
    }

    /** Drain: a call not yet at a carrier gets 503 at once. */
    synchronized void abortHeld() {
        if (phase.beforeCarrier()) {
            sendOwn(Refusals.DRAINING);
            if (routing != null) {
                routing.cancel();
            }
        }
    }

    /** Shutdown: a call not yet at a carrier gets 503; one at a carrier is cancelled there. */
    synchronized void abort() {
        if (phase.beforeCarrier()) {
            sendOwn(Refusals.SHUTDOWN);
            if (routing != null) {
                routing.cancel();
            }
        } else if (phase.atCarrier()) {
            if (!cancelled) {
                hungUpBy = "gateway";
            }
            cancelled = true;
            if (phase != CallPhase.TRYING) {
                sendCancel();
            } else {
                legs.stopRetransmitting(client); // its CANCEL follows the carrier's first response
            }
        }
    }

    private void sendCancel() {
        if (sendCancel(client, sentTo, carrier.id())) {
            cancelSent = true;
        }
    }

    private boolean sendCancel(CallLegs.Leg attempt, CarrierAddress to, String carrierId) {
        services.time().timers().schedule(() -> onCancelUnanswered(attempt, carrierId),
                CANCEL_UNANSWERED.toMillis(), TimeUnit.MILLISECONDS);
        try {
            legs.cancel(attempt, to);
            return true;
        } catch (Exception e) {
            log.warn("call={} cannot send CANCEL to {}: {}", logId, carrierId, e.toString());
            return false;
        }
    }

    /**
     * 64*T1 after the attempt's CANCEL: if its carrier still sent no final response, its INVITE transaction is over
     * (RFC 3261 §9.1), or it would stay in the stack for good; a call still waiting on it ends with its own 487.
     */
    private synchronized void onCancelUnanswered(CallLegs.Leg attempt, String carrierId) {
        try {
            if (!legs.abandon(attempt)) {
                return;
            }
        } catch (Exception e) {
            log.warn("call={} INVITE transaction at {} not ended: {}", logId, carrierId, e.toString());
            return;
        }
        log.info("call={} carrier {} sent no final response within {} s of its CANCEL: transaction ended", logId,
                carrierId, CANCEL_UNANSWERED.toSeconds());
        if (attempt == client && phase != CallPhase.ENDED) {
            sendOwn(Refusals.CANCELLED);
        }
    }

    /**
     * The call leaves an attempt whose carrier sent nothing: the carrier gets no further copy of the INVITE (a
     * carrier that comes back would answer a call that is over), and no CANCEL yet (none may go before a
     * provisional, RFC 3261 §9.1).
     */
    private void leaveSilent(CallLegs.Leg attempt) {
        legs.stopRetransmitting(attempt);
        leftSilent.put(attempt, new LeftAttempt(carrier.id(), sentTo));
    }

    /** A response on an attempt the call left: a first provisional of one left silent gets its CANCEL now. */
    private void cancelLeftSilent(CallLegs.Leg attempt, int status) {
        LeftAttempt left = leftSilent.remove(attempt);
        if (left != null && status < 200) {
            sendCancel(attempt, left.address(), left.carrierId());
        }
    }

    private void relayProvisional(Response response) {
        try {
            legs.answer(SipMessages.relayed(response));
            if (ringingNanos == 0) {
                ringingNanos = services.time().nanoTime();
            }
        } catch (Exception e) {
            log.warn("call={} provisional {} not relayed: {}", logId, response.getStatusCode(), e.toString());
        }
    }

    private void relayStateless(Response response) {
        try {
            legs.answerAgain(SipMessages.relayed(response));
        } catch (Exception e) {
            log.warn("call={} further {} not relayed: {}", logId, response.getStatusCode(), e.toString());
        }
    }

    /** ACKs a 2xx nobody upstream will take and ends that leg with a BYE of the gateway's own. */
    private void hangUp(CallLegs.Leg leg, Response answer) {
        if (dialog != null) {
            dialog.legClosed(SipMessages.toTag(answer));
        }
        try {
            legs.closeAnswered(leg, answer, dialog == null ? List.of() : dialog.otherRoutes(true));
            log.info("call={} late answer from {} closed with ACK and BYE", logId,
                    carrier == null ? "-" : carrier.id());
        } catch (Exception e) {
            log.warn("call={} late answer not closed: {}", logId, e.toString());
        }
    }

    private synchronized void rejectAfterError() {
        if (phase != CallPhase.ENDED) {
            sendOwn(Refusals.INTERNAL_ERROR);
        }
    }

    private void sendOwn(Refusal refusal) {
        if (hungUpBy == null) {
            hungUpBy = "gateway";
        }
        try {
            sendFinal(services.messages().refusal(refusal.status(), request, refusal.reason(),
                    refusal.retryAfterSeconds()));
        } catch (Exception e) {
            log.warn("call={} cannot build {} response: {}", logId, refusal.status(), e.toString());
            finalReason = RecordFields.reason("SIP", refusal.status(), refusal.reason());
            finish(refusal.status());
            services.calls().remove(this);
        }
    }

    private void sendFinal(Response response) {
        if (phase == CallPhase.ENDED) {
            return;
        }
        // Accounted before it is sent: whoever gets the answer and then looks at metrics or records sees the call.
        finalReason = RecordFields.reason(response);
        finish(response.getStatusCode());
        try {
            legs.answer(response);
        } catch (Exception e) {
            log.warn("call={} final response {} not sent: {}", logId, response.getStatusCode(), e.toString());
        } finally {
            services.calls().remove(this);
        }
    }

    private void finish(int status) {
        enter(CallPhase.ENDED);
        stopAttemptTimer();
        services.calls().answering(this);
        if (dialog == null || !dialog.confirmed()) {
            if (dialog != null) {
                services.dialogs().remove(dialog, "failed");
            }
            services.calls().refused(identity, Optional.empty());
            CallRecord ended = record(status, null).ended(services.time().now(), "failed",
                    hungUpBy == null ? "callee" : hungUpBy, null);
            int challenges = challenge.map(Challenge::challenges).orElse(0);
            if (hungUpBy == null && Challenge.continues(status, challenges)) {
                awaitRetry(ended, challenges + 1);
            } else {
                services.leases().release(counted.key());
                services.records().accept(ended);
            }
        }
        List<String> wouldRefuse = wouldRefuse();
        if (active.logsEachCall()) {
            callLog.info("call={} peer={} admission={} carrier={} held={}ms reroutes={} final={} took={}ms{}",
                    logId, peer.id(), admission, carrier == null ? "-" : carrier.id(), held.toMillis(),
                    routing == null ? "[]" : routing.reroutes(), status,
                    TimeUnit.NANOSECONDS.toMillis(services.time().nanoTime() - arrivedNanos),
                    wouldRefuse.isEmpty() ? "" : " would_refuse=" + wouldRefuse);
        }
        if (challenge.isEmpty()) {
            wouldRefuse.forEach(limit -> services.metrics().callWouldRefuse(peer.id(), limit));
            countAdmission();
        } else {
            // a retry after a challenge: its admission and what came before it were counted with its first INVITE
            carrierWouldRefuse.subList(challenge.get().wouldRefuse().size(), carrierWouldRefuse.size())
                    .forEach(limit -> services.metrics().callWouldRefuse(peer.id(), limit));
        }
        if (carrier != null) {
            services.metrics().callSent(carrier.id(), held.minus(challenge.map(Challenge::held).orElse(Duration.ZERO)));
        }
    }

    /** The call's admission in the metrics: admitted, shed or rejected, and why. */
    private void countAdmission() {
        if (verdict != null && verdict.admitted() && !AdmissionLabels.duplicate(verdict)) {
            services.metrics().callAdmitted(peer.id());
        } else if (verdict != null && verdict.gatewayBehind()) {
            services.metrics().callShed(peer.id(), ShedReason.OVERLOAD.tag());
        } else if (verdict != null) {
            services.metrics().callRejected(peer.id(), AdmissionLabels.rejectionReason(verdict));
        }
    }

    /**
     * The carrier's 401 or 407 goes to the caller, its {@code challenges}th: the call waits for the retry with
     * credentials, holding its leases; the record it ends with ({@code ended}) is written if none comes in time.
     */
    private void awaitRetry(CallRecord ended, int challenges) {
        String countedKey = counted.key();
        Challenge waiting = new Challenge(peer.id(), counted, identity.cseq(), challenges, verdict, admission,
                invitedAt, arrivedNanos, caller, attempts, tried(), reroutes(), carrierWouldRefuse, held, () -> {
                    services.leases().release(countedKey);
                    services.records().accept(ended);
                });
        services.calls().challenged(waiting);
        services.time().timers().schedule(() -> services.calls().challengeOver(waiting),
                CallRegistry.CHALLENGE_SPAN.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The carriers the call was sent to, in order: before its challenges too. */
    private List<String> tried() {
        List<String> tried = new ArrayList<>(challenge.map(Challenge::tried).orElse(List.of()));
        if (routing != null) {
            tried.addAll(routing.tried());
        }
        return tried;
    }

    /** The call's reroutes, in order: before its challenges too. */
    private List<String> reroutes() {
        List<String> reroutes = new ArrayList<>(challenge.map(Challenge::reroutes).orElse(List.of()));
        if (routing != null) {
            reroutes.addAll(routing.reroutes());
        }
        return reroutes;
    }

    /** The call record so far: everything but its end ({@code answeredAt} null for a call not answered). */
    private CallRecord record(int status, Instant answeredAt) {
        long now = services.time().nanoTime();
        return new CallRecord(identity.callId(), active.config().instanceId(), caller, peer.id(),
                peer.group().orElse(null),
                verdict == null ? "pending" : AdmissionLabels.recordOutcome(verdict),
                verdict == null ? null : AdmissionLabels.refusedBy(verdict, peer.id()),
                wouldRefuse(),
                tried(), reroutes(),
                attempts.stream().map(RecordFields.Attempt::record).toList(), held.toMillis(), invitedAt, decidedAt(),
                ringingNanos == 0 ? null : TimeUnit.NANOSECONDS.toMillis(ringingNanos - arrivedNanos),
                TimeUnit.NANOSECONDS.toMillis(now - arrivedNanos), answeredAt, null, 0, status, finalReason, null,
                null, null);
    }

    /** When Redis decided the call's admission (its clock), or null when Redis did not decide it. */
    private Instant decidedAt() {
        if (verdict == null || verdict.unavailable().isPresent()) {
            return null;
        }
        return verdict.decision().map(d -> Instant.EPOCH.plus(d.serverTimeMicros(), ChronoUnit.MICROS)).orElse(null);
    }

    private void stopAttemptTimer() {
        if (attemptTimer != null) {
            attemptTimer.cancel(false);
            attemptTimer = null;
        }
    }
}
