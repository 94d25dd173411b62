package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.config.SipUri;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.internal.LocalSlotReserver;
import io.trunkgate.pace.internal.TimerCarrierPacer;
import io.trunkgate.records.CallRecord;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.TestConfigs;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import javax.sip.SipFactory;
import javax.sip.address.Address;
import javax.sip.address.AddressFactory;
import javax.sip.address.SipURI;
import javax.sip.header.ContactHeader;
import javax.sip.header.CallIdHeader;
import javax.sip.header.Header;
import javax.sip.header.HeaderFactory;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.MessageFactory;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One INVITE through every phase of {@link CallPhase}, without sockets: real javax.sip messages, a recording
 * {@link CallLegs}, admission verdicts the test hands in, the real in-memory carrier pacer, and every timer on a
 * manual clock.
 */
class InviteCallTest {

    private static final String NUMBER = "+15551234";
    private static final String PEER = "peer-a";
    private static final InetSocketAddress CALLER = new InetSocketAddress("198.51.100.7", 5060);
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(2);
    /** The ring-timeout TestConfigs gives every carrier. */
    private static final Duration RING_TIMEOUT = Duration.ofMinutes(2);
    private static final CarrierAddress FIRST = address("192.0.2.10");
    private static final CarrierAddress ALTERNATE = address("192.0.2.20");

    private final ManualTime time = new ManualTime();
    private final SipMessages messages = new SipMessages();
    private final MessageFactory messageFactory;
    private final AddressFactory addresses = messages.addresses();
    private final HeaderFactory headers = messages.headers();
    private final RecordingLegs legs = new RecordingLegs();
    private final RecordingLeases leases = new RecordingLeases();
    /** The admissions asked for, in order, each completed by the test. */
    private final Deque<CompletableFuture<AdmissionVerdict>> admissions = new ArrayDeque<>();
    private final List<CallRecord> records = new ArrayList<>();
    private final List<CallRecord> answeredRecords = new ArrayList<>();
    private final CallRegistry calls = new CallRegistry(System::nanoTime);
    private final DialogTable dialogs = new DialogTable(Duration.ofHours(1), Duration.ZERO, Duration.ofSeconds(32),
            1000, time::nanoTime, time.clock(), (key, record) -> answeredRecords.add(record));
    private final GatewayMetrics metrics = new GatewayMetrics("test-gw");
    private final TimerCarrierPacer pacer = new TimerCarrierPacer(new LocalSlotReserver(1, time::wallMicros),
            time.scheduler(), time::nanoTime);
    private ActiveConfig active = config(1000, RedisDownPolicy.REJECT);
    private int calling;

    InviteCallTest() throws Exception {
        messageFactory = SipFactory.getInstance().createMessageFactory();
    }

    @AfterEach
    void close() {
        pacer.close();
        metrics.close();
    }

    // ---- admitted, answered ----

    @Test
    void admittedCallGoesToItsCarrierRingsAndIsAnswered() throws Exception {
        InviteCall call = start();
        assertEquals(CallPhase.ADMITTING, call.phase());
        assertTrue(legs.invites().isEmpty(), "nothing goes to a carrier before the admission");

        admit(Outcome.ADMITTED);
        assertEquals(CallPhase.TRYING, call.phase());
        RecordingLegs.Leg leg = legs.onlyInvite();
        assertEquals(FIRST, leg.to());
        assertEquals("sip:" + NUMBER + "@192.0.2.10:5060", leg.invite().getRequestURI().toString());

        carrier(call, leg, Response.TRYING);
        assertEquals(CallPhase.PROCEEDING, call.phase());
        assertTrue(legs.answers().isEmpty(), "a carrier's 100 is not relayed");

        time.advance(Duration.ofMillis(300));
        carrier(call, leg, Response.RINGING);
        assertEquals(CallPhase.RINGING, call.phase());
        assertEquals(List.of(Response.RINGING), statuses(legs.answers()));

        time.advance(ANSWER_TIMEOUT.multipliedBy(3));
        assertEquals(CallPhase.RINGING, call.phase(), "once ringing, answer-timeout no longer runs");
        assertEquals(1, legs.invites().size(), "no failover once ringing");
        assertTrue(legs.about(leg).isEmpty(), "the ringing carrier is not cancelled");
        carrier(call, leg, Response.OK);
        assertEquals(CallPhase.ENDED, call.phase());
        assertEquals(List.of(Response.RINGING, Response.OK), statuses(legs.answers()));
        assertEquals("carrier-1", ((ToHeader) legs.answers().get(1).getHeader(ToHeader.NAME)).getTag());
        assertEquals("z9hG4bK-caller-call-1",
                ((ViaHeader) legs.answers().get(1).getHeader(ViaHeader.NAME)).getBranch(),
                "the gateway's own Via is taken off upstream");
        assertTrue(dialogs.find(call.identity().callId(), call.identity().fromTag()).orElseThrow().confirmed());
        assertTrue(records.isEmpty(), "an answered call's record is written when its dialog ends");
        assertTrue(leases.released.isEmpty(), "an answered call keeps its leases");
        assertFalse(calls.inProgress(call.identity().callId(), call.identity().fromTag()),
                "the call leaves the calls in progress");
    }

    // ---- refused ----

    @Test
    void overALimitIsRefused503WithRetryAfter() throws Exception {
        InviteCall call = start();
        admit(decision(Outcome.LIMITED, Duration.ofMillis(1500)));
        Response refusal = refused(call, Response.SERVICE_UNAVAILABLE, "CPS limit");
        assertEquals(2, ((RetryAfterHeader) refusal.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
        CallRecord record = onlyRecord();
        assertEquals("rejected", record.admission());
        assertEquals("gateway", record.hungUpBy());
    }

    @Test
    void blockedPeerIsRefused403() throws Exception {
        InviteCall call = start();
        admit(decision(Outcome.BLOCKED, Duration.ofSeconds(60)));
        refused(call, Response.FORBIDDEN, "peer " + PEER + " is blocked");
        assertEquals("blocked", onlyRecord().admission());
    }

    @Test
    void callOverItsMaxConcurrentIsRefusedWithTheConcurrentCode() throws Exception {
        InviteCall call = start();
        admit(decision(Outcome.CONCURRENT, Duration.ZERO));
        Response refusal = refused(call, Response.SERVICE_UNAVAILABLE, "max-concurrent of " + PEER + " reached");
        assertNull(refusal.getHeader(RetryAfterHeader.NAME), "nobody knows when a call in progress ends");
    }

    @Test
    void callTooHeavyForALimitIsRefused() throws Exception {
        InviteCall call = start();
        admit(decision(Outcome.TOO_HEAVY, Duration.ZERO));
        refused(call, Response.SERVICE_UNAVAILABLE, "call weight exceeds limit");
    }

    @Test
    void copyOfACallAlreadyPlacedIsRefusedAsMerged() throws Exception {
        InviteCall call = start();
        admit(decision(Outcome.DUPLICATE, Duration.ZERO));
        refused(call, Response.LOOP_DETECTED, "merged request");
        assertEquals("merged", onlyRecord().admission());
    }

    @Test
    void noDecisionUnderTheRejectPolicyIsRefused() throws Exception {
        InviteCall call = start();
        admissions.removeFirst().complete(AdmissionVerdict.redisDown(false, Optional.empty(), "timeout"));
        refused(call, Response.SERVICE_UNAVAILABLE, "admission unavailable: redis unreachable");
        assertEquals("redis_unavailable", onlyRecord().admission());
    }

    /**
     * No decision because this gateway fell behind while Redis answered: refused as a call shed for overload (503
     * with Retry-After, recorded and counted as shed), not as Redis unavailable, whatever the Redis-down policy.
     */
    @Test
    void noDecisionBecauseTheGatewayIsBehindIsRefusedAsOverload() throws Exception {
        active = config(1, RedisDownPolicy.ALLOW);
        InviteCall call = start();
        admissions.removeFirst().complete(AdmissionVerdict.gatewayBehind("no reply read within 500ms"));
        Response refusal = refused(call, Response.SERVICE_UNAVAILABLE, "gateway overloaded");
        assertEquals(1, ((RetryAfterHeader) refusal.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
        CallRecord record = onlyRecord();
        assertEquals("shed", record.admission());
        assertEquals("overload", record.refusedBy());
        String scrape = metrics.scrape();
        assertEquals(1.0, Metrics.value(scrape, "trunkgate_calls_shed_total", Map.of("peer", PEER, "reason", "overload"))
                .orElse(0));
        assertEquals(0.0, Metrics.value(scrape, "trunkgate_calls_rejected_total",
                Map.of("peer", PEER, "reason", "redis_unavailable")).orElse(0));
    }

    @Test
    void admissionThatFailsIsAnswered500() throws Exception {
        InviteCall call = start();
        admissions.removeFirst().completeExceptionally(new IllegalStateException("broken"));
        refused(call, Response.SERVER_INTERNAL_ERROR, "internal error");
    }

    @Test
    void numberWithoutARouteIsAnswered404() throws Exception {
        InviteCall call = start("call-1", "+4420");
        admit(Outcome.ADMITTED);
        refused(call, Response.NOT_FOUND, "no route for +4420");
        assertEquals("admitted", onlyRecord().admission());
    }

    // ---- held for a slot ----

    @Test
    void callOverItsCarriersRateIsHeldUntilItsSlot() throws Exception {
        active = config(1, RedisDownPolicy.REJECT);
        InviteCall first = start("call-1", NUMBER);
        admit(Outcome.ADMITTED);
        assertEquals(CallPhase.TRYING, first.phase());

        InviteCall second = start("call-2", NUMBER);
        admit(Outcome.ADMITTED);
        assertEquals(CallPhase.ROUTING, second.phase(), "held for the carrier's next slot");
        assertEquals(1, legs.invites().size());

        time.advance(Duration.ofMillis(999));
        assertEquals(CallPhase.ROUTING, second.phase());
        assertEquals(1, legs.invites().size());
        time.advance(Duration.ofMillis(1));
        assertEquals(CallPhase.TRYING, second.phase());
        assertEquals(2, legs.invites().size());

        carrier(second, legs.invites().get(1), Response.BUSY_HERE);
        CallRecord record = onlyRecord();
        assertEquals(1000, record.heldMs());
        assertEquals(1000, record.attempts().get(0).slotWaitMs());
    }

    @Test
    void cancelWhileHeldAnswers487AndNeverReachesTheCarrier() throws Exception {
        active = config(1, RedisDownPolicy.REJECT);
        start("call-1", NUMBER);
        admit(Outcome.ADMITTED);
        InviteCall held = start("call-2", NUMBER);
        admit(Outcome.ADMITTED);
        time.advance(Duration.ofMillis(400));

        assertEquals(1, pacer.heldCount("a"));
        held.cancel();
        assertEquals(CallPhase.ENDED, held.phase());
        assertEquals(0, pacer.heldCount("a"), "the call no longer waits for its slot");
        assertEquals(Response.REQUEST_TERMINATED, legs.answers().get(legs.answers().size() - 1).getStatusCode());
        time.advance(Duration.ofSeconds(1)); // past the slot it was held for
        assertEquals(List.of("call-1"), legs.invitedCallIds(), "the held call is never sent");
        CallRecord record = onlyRecord();
        assertEquals("caller", record.hungUpBy());
        assertEquals(400, record.heldMs());
        assertTrue(leases.released.contains(held.identity().key()));
    }

    @Test
    void everyCarrierOverItsMaxWaitIsRefused503WithRetryAfter() throws Exception {
        active = config(1, 1, Duration.ofMillis(500), RedisDownPolicy.REJECT, false);
        start("call-1", NUMBER);
        admit(Outcome.ADMITTED);
        start("call-2", NUMBER);
        admit(Outcome.ADMITTED);
        assertEquals(List.of(FIRST, ALTERNATE), legs.invites().stream().map(RecordingLegs.Leg::to).toList(),
                "the second call goes to the alternate: the first carrier's next slot is past its max-wait");

        InviteCall third = start("call-3", NUMBER);
        admit(Outcome.ADMITTED);
        Response refusal = refused(third, Response.SERVICE_UNAVAILABLE, "no carrier slot within max-wait");
        assertEquals(1, ((RetryAfterHeader) refusal.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
        assertEquals(2, legs.invites().size());
    }

    // ---- failover ----

    @Test
    void carriers503FailsOverToTheAlternate() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg first = legs.onlyInvite();
        carrier(call, first, Response.SERVICE_UNAVAILABLE);

        assertEquals(CallPhase.TRYING, call.phase());
        assertEquals(2, legs.invites().size());
        RecordingLegs.Leg alternate = legs.invites().get(1);
        assertEquals(ALTERNATE, alternate.to());
        assertTrue(legs.answers().isEmpty(), "the 503 is not relayed while an alternate is left");

        carrier(call, alternate, Response.OK);
        assertEquals(List.of(Response.OK), statuses(legs.answers()));
        assertEquals(CallPhase.ENDED, call.phase());
    }

    @Test
    void everyCarrierFailingSendsTheLastFailureUpstream() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        carrier(call, legs.onlyInvite(), Response.SERVICE_UNAVAILABLE);
        carrier(call, legs.invites().get(1), Response.SERVICE_UNAVAILABLE);
        assertEquals(CallPhase.ENDED, call.phase());
        assertEquals(List.of(Response.SERVICE_UNAVAILABLE), statuses(legs.answers()));
        CallRecord record = onlyRecord();
        assertEquals("callee", record.hungUpBy());
        assertEquals(List.of(503, 503), record.attempts().stream().map(CallRecord.Attempt::finalStatus).toList());
    }

    @Test
    void silentCarrierIsLeftAtAnswerTimeoutForTheAlternate() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg silent = legs.onlyInvite();

        time.advance(ANSWER_TIMEOUT.minusMillis(1));
        assertEquals(1, legs.invites().size());
        time.advance(Duration.ofMillis(1));
        assertEquals(List.of("stop retransmitting " + silent.n()), legs.about(silent));
        assertEquals(2, legs.invites().size());
        assertEquals(ALTERNATE, legs.invites().get(1).to());
        assertEquals(CallPhase.TRYING, call.phase());

        // No CANCEL before a provisional (RFC 3261 §9.1); the late one gets it.
        carrier(call, silent, Response.RINGING);
        assertEquals(List.of("stop retransmitting 1", "CANCEL 1"), legs.about(silent));
        assertTrue(legs.answers().isEmpty(), "nothing of the left carrier goes upstream");
    }

    @Test
    void silentCarrierThatDoesNotFailOverOnTimeoutEndsTheCall408() throws Exception {
        active = config(1000, RedisDownPolicy.REJECT, true);
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        time.advance(ANSWER_TIMEOUT);
        refused(call, Response.REQUEST_TIMEOUT, "within answer-timeout");
        assertEquals(List.of("stop retransmitting 1"), legs.about(leg));

        carrier(call, leg, Response.RINGING);
        assertEquals(List.of("stop retransmitting 1", "CANCEL 1"), legs.about(leg), "a late ring is cancelled");
        assertEquals(List.of(Response.REQUEST_TIMEOUT), statuses(legs.answers()));
    }

    @Test
    void lateAnswerOfACarrierLeftIsAckedAndHungUp() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg silent = legs.onlyInvite();
        time.advance(ANSWER_TIMEOUT);
        RecordingLegs.Leg alternate = legs.invites().get(1);
        carrier(call, alternate, Response.OK);

        carrier(call, silent, Response.OK);
        assertEquals(List.of("stop retransmitting 1", "ACK+BYE 1"), legs.about(silent));
        assertEquals(List.of(Response.OK), statuses(legs.answers()), "only the alternate's answer goes upstream");
        assertEquals("carrier-2", ((ToHeader) legs.answers().get(0).getHeader(ToHeader.NAME)).getTag());
    }

    @Test
    void aLateAnswerOfACarrierLeftLeavesTheDialogWithTheCarrierThatAnswered() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg silent = legs.onlyInvite();
        time.advance(ANSWER_TIMEOUT);
        RecordingLegs.Leg alternate = legs.invites().get(1);
        carrier(call, alternate, Response.OK, contact("sip:callee@192.0.2.2:5060"));
        carrier(call, silent, Response.OK, contact("sip:callee@192.0.2.1:5060"));

        Dialog dialog = dialogs.find(call.identity().callId(), call.identity().fromTag()).orElseThrow();
        assertEquals("sip:callee@192.0.2.2:5060", dialog.otherTarget(true).toString(),
                "the caller's BYE goes to the carrier that answered, not to the one left");
    }

    private ContactHeader contact(String uri) throws Exception {
        return headers.createContactHeader(addresses.createAddress(addresses.createURI(uri)));
    }

    @Test
    void answerAfterTheCallFailedIsAckedAndHungUp() throws Exception {
        active = config(1000, RedisDownPolicy.REJECT, true);
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.TRYING);
        time.advance(ANSWER_TIMEOUT);
        assertEquals(CallPhase.ENDED, call.phase());

        carrier(call, leg, Response.OK);
        assertEquals(List.of("CANCEL 1", "ACK+BYE 1"), legs.about(leg));
        assertEquals(List.of(Response.REQUEST_TIMEOUT), statuses(legs.answers()));
    }

    @Test
    void furtherAnswersOfTheAnsweringCarrierGoUpstreamOutsideTheTransaction() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.OK);
        carrier(call, leg, Response.OK);
        assertEquals(List.of(Response.OK), statuses(legs.answers()));
        assertEquals(List.of(Response.OK), statuses(legs.answeredAgain()));
    }

    // ---- ring timeout ----

    @Test
    void callRingingUntilRingTimeoutIsCancelledAtItsCarrierAndAnswered408() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);

        time.advance(RING_TIMEOUT.minusMillis(1));
        assertEquals(CallPhase.RINGING, call.phase());
        time.advance(Duration.ofMillis(1));
        assertEquals(List.of("CANCEL 1"), legs.about(leg));
        assertEquals(1, legs.invites().size(), "no failover after ringing");
        refused(call, Response.REQUEST_TIMEOUT, "within ring-timeout");
    }

    @Test
    void theLegsTimerCOutlastsItsCarriersRingAndAnswerTimeouts() throws Exception {
        start();
        admit(Outcome.ADMITTED);
        assertEquals(RING_TIMEOUT.plusSeconds(30), legs.onlyInvite().timerC());

        CarrierConfig ringsLong = new CarrierConfig("long", SipUri.parse("sip:192.0.2.30:5060"), 10, 1,
                Duration.ofSeconds(5), Set.of(503), true, List.of(), 1000, Duration.ofSeconds(5),
                Duration.ofMinutes(10));
        assertTrue(InviteCall.timerC(ringsLong).compareTo(Duration.ofMinutes(10)) > 0,
                "Timer C must not cancel a call ringing within its ring-timeout");
        CarrierConfig slowToAnswer = new CarrierConfig("slow", SipUri.parse("sip:192.0.2.30:5060"), 10, 1,
                Duration.ofSeconds(5), Set.of(503), true, List.of(), 1000, Duration.ofMinutes(4),
                Duration.ofMinutes(1));
        assertTrue(InviteCall.timerC(slowToAnswer).compareTo(Duration.ofMinutes(4)) > 0);
    }

    // ---- CANCEL at the carrier ----

    @Test
    void cancelOfARingingCallGoesToItsCarrierWhoseAnswerGoesUpstream() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);

        call.cancel();
        assertEquals(List.of("CANCEL 1"), legs.about(leg));
        assertEquals(CallPhase.RINGING, call.phase(), "the carrier's answer to the CANCEL ends the call");
        carrier(call, leg, Response.REQUEST_TERMINATED);
        assertEquals(CallPhase.ENDED, call.phase());
        assertEquals(List.of(Response.RINGING, Response.REQUEST_TERMINATED), statuses(legs.answers()));
        assertEquals("caller", onlyRecord().hungUpBy());
    }

    @Test
    void aCancelTheCarrierNeverAnswersEndsItsInviteTransactionAndTheCallAfter64TimesT1() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);
        call.cancel();

        time.advance(InviteCall.CANCEL_UNANSWERED.minusMillis(1));
        assertEquals(CallPhase.RINGING, call.phase(), "the carrier's 487 may still come");
        time.advance(Duration.ofMillis(1));
        assertEquals(List.of("CANCEL 1", "abandon 1"), legs.about(leg));
        assertEquals(List.of(Response.RINGING, Response.REQUEST_TERMINATED), statuses(legs.answers()));
        CallRecord record = onlyRecord();
        assertEquals(Response.REQUEST_TERMINATED, record.finalStatus());
        assertEquals("caller", record.hungUpBy());
    }

    @Test
    void aCancelledInviteTheCarrierAnsweredIsNotAbandoned() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);
        call.cancel();
        carrier(call, leg, Response.REQUEST_TERMINATED);

        time.advance(InviteCall.CANCEL_UNANSWERED);
        assertEquals(List.of("CANCEL 1"), legs.about(leg));
        assertEquals(List.of(Response.RINGING, Response.REQUEST_TERMINATED), statuses(legs.answers()));
    }

    @Test
    void anInviteCancelledAtRingTimeoutWhoseCarrierNeverAnswersIsAbandonedAfterTheCall() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);
        time.advance(RING_TIMEOUT);
        refused(call, Response.REQUEST_TIMEOUT, "within ring-timeout");

        time.advance(InviteCall.CANCEL_UNANSWERED);
        assertEquals(List.of("CANCEL 1", "abandon 1"), legs.about(leg));
        assertEquals(List.of(Response.RINGING, Response.REQUEST_TIMEOUT), statuses(legs.answers()),
                "the call already ended: nothing more goes upstream");
    }

    @Test
    void cancelBeforeTheCarriersFirstResponseAnswers487AtOnceAndCancelsAfterIt() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();

        call.cancel();
        assertEquals(CallPhase.ENDED, call.phase());
        assertEquals(List.of(Response.REQUEST_TERMINATED), statuses(legs.answers()));
        assertEquals(List.of("stop retransmitting 1"), legs.about(leg), "no CANCEL before a provisional");

        carrier(call, leg, Response.TRYING);
        assertEquals(List.of("stop retransmitting 1", "CANCEL 1"), legs.about(leg));
        time.advance(ANSWER_TIMEOUT);
        assertEquals(1, legs.invites().size(), "a cancelled call does not fail over");
        assertEquals(List.of(Response.REQUEST_TERMINATED), statuses(legs.answers()));
    }

    @Test
    void answerAfterACancelBeforeAnyResponseIsAckedAndHungUp() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        call.cancel();

        carrier(call, leg, Response.OK);
        assertEquals(List.of("stop retransmitting 1", "ACK+BYE 1"), legs.about(leg));
        assertEquals(List.of(Response.REQUEST_TERMINATED), statuses(legs.answers()));
        assertEquals("caller", onlyRecord().hungUpBy());
    }

    // ---- session timer ----

    @Test
    void answeredCallWhoseSessionTimerNobodyRefreshesEndsAfterItsInterval() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        carrier(call, legs.onlyInvite(), Response.OK, headers.createHeader("Session-Expires", "90;refresher=uac"));
        Duration life = Duration.ofSeconds(90 + 30); // the interval and its grace, a third of it (RFC 4028 §10)
        dialogs.touch(dialogs.find(call.identity().callId(), call.identity().fromTag()).orElseThrow(), true); // ACK

        time.advance(life);
        dialogs.sweep();
        assertTrue(answeredRecords.isEmpty(), "the session still runs");
        time.advance(Duration.ofMillis(1));
        dialogs.sweep();
        assertEquals(1, answeredRecords.size());
        CallRecord record = answeredRecords.get(0);
        assertEquals("session_expired", record.endedBy());
        assertEquals(life.plusMillis(1), Duration.between(record.answeredAt(), record.endedAt()));
        assertTrue(records.isEmpty(), "an answered call's record is written once, when its dialog ends");
    }

    // ---- drain and shutdown ----

    @Test
    void drainAnswersHeldCalls503AndLeavesCallsAtACarrier() throws Exception {
        active = config(1, RedisDownPolicy.REJECT);
        InviteCall atCarrier = start("call-1", NUMBER);
        admit(Outcome.ADMITTED);
        InviteCall held = start("call-2", NUMBER);
        admit(Outcome.ADMITTED);
        InviteCall admitting = start("call-3", NUMBER);

        assertEquals(2, calls.notForwarded());
        calls.abortHeld();
        assertEquals(0, pacer.heldCount("a"), "the drained call no longer waits for its slot");
        assertEquals(CallPhase.ENDED, held.phase());
        assertEquals(CallPhase.ENDED, admitting.phase());
        assertEquals(CallPhase.TRYING, atCarrier.phase());
        List<Response> drained = legs.answers();
        assertEquals(List.of(503, 503), statuses(drained));
        for (Response response : drained) {
            assertEquals(1, ((RetryAfterHeader) response.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
            assertTrue(((ReasonHeader) response.getHeader(ReasonHeader.NAME)).getText().contains("gateway shutting down"));
        }
        time.advance(Duration.ofSeconds(1));
        assertEquals(1, legs.invites().size(), "a drained call is never sent");

        // The admission of a call drained meanwhile comes back: its leases go, nothing is sent.
        admit(Outcome.ADMITTED);
        assertTrue(leases.released.contains(admitting.identity().key()));
        assertEquals(1, legs.invites().size());
    }

    @Test
    void shutdownCancelsCallsAtTheirCarrier() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);

        calls.abortAll();
        assertEquals(List.of("CANCEL 1"), legs.about(leg));
        carrier(call, leg, Response.REQUEST_TERMINATED);
        assertEquals("gateway", onlyRecord().hungUpBy());
    }

    @Test
    void aCallIsUnansweredUntilItsAnswerHasLeftThoughNoLongerInProgressAsItGoes() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        RecordingLegs.Leg leg = legs.onlyInvite();
        carrier(call, leg, Response.RINGING);
        List<String> whileAnswering = new ArrayList<>();
        legs.whileAnswering = () -> whileAnswering.add("in progress " + calls.size() + ", caller busy "
                + calls.inProgress(call.identity().callId(), call.identity().fromTag()) + ", all answered "
                + calls.allAnswered());

        calls.abortAll();
        assertFalse(calls.allAnswered());
        carrier(call, leg, Response.REQUEST_TERMINATED);
        // its caller may call again, and overload control no longer counts it; a drain or shutdown still waits
        assertEquals(List.of("in progress 0, caller busy false, all answered false"), whileAnswering);
        assertTrue(calls.allAnswered());
    }

    // ---- challenged by the carrier ----

    @Test
    void aChallengedCallThatNoRetryContinuesEndsAfterTheChallengeSpanWithItsRecordAndLeases() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        carrier(call, legs.onlyInvite(), Response.PROXY_AUTHENTICATION_REQUIRED);
        assertEquals(List.of(Response.PROXY_AUTHENTICATION_REQUIRED), statuses(legs.answers()));
        assertTrue(records.isEmpty(), "the call waits for the caller's retry");
        assertTrue(leases.released.isEmpty(), "and keeps its leases meanwhile");
        assertEquals(java.util.Set.of(call.identity().key()), calls.callKeys(), "which are renewed");

        time.advance(CallRegistry.CHALLENGE_SPAN.minusMillis(1));
        assertTrue(records.isEmpty());
        time.advance(Duration.ofMillis(1));
        assertEquals(Response.PROXY_AUTHENTICATION_REQUIRED, onlyRecord().finalStatus());
        assertTrue(leases.released.contains(call.identity().key()), "no retry came: the leases go");
        assertTrue(calls.callKeys().isEmpty());
    }

    @Test
    void onlyALaterCseqWithCredentialsFromTheSamePeerContinuesAChallengedCall() throws Exception {
        InviteCall call = start();
        admit(Outcome.ADMITTED);
        carrier(call, legs.onlyInvite(), Response.UNAUTHORIZED);
        CallIdentity first = call.identity();
        CallIdentity retry = new CallIdentity(first.callId(), first.fromTag(), first.cseq() + 1);

        assertTrue(calls.takeChallenge(retry, PEER, false).isEmpty(), "no credentials: a call of its own");
        assertTrue(calls.takeChallenge(retry, "peer-b", true).isEmpty(), "another peer's INVITE");
        assertTrue(calls.takeChallenge(first, PEER, true).isEmpty(), "the challenged CSeq again");
        assertTrue(calls.takeChallenge(new CallIdentity(first.callId(), "other-tag", 2), PEER, true).isEmpty());
        Challenge taken = calls.takeChallenge(retry, PEER, true).orElseThrow();
        assertEquals(first, taken.counted(), "the retry is counted and leased as the first INVITE");
        assertTrue(calls.takeChallenge(retry, PEER, true).isEmpty(), "taken once");

        time.advance(CallRegistry.CHALLENGE_SPAN);
        assertTrue(records.isEmpty(), "the retry that took it writes the call's record");
        assertTrue(leases.released.isEmpty());
    }

    @Test
    void aCallIsContinuedAcrossTwoChallengesAtMost() {
        assertTrue(Challenge.continues(407, 0));
        assertTrue(Challenge.continues(401, 1));
        assertFalse(Challenge.continues(401, 2), "a third challenge ends the call");
        assertFalse(Challenge.continues(403, 0));
        assertFalse(Challenge.continues(486, 0));
    }

    // ---- helpers ----

    private InviteCall start() throws Exception {
        return start("call-1", NUMBER);
    }

    /** A new INVITE from the peer, added to the calls in progress and started, as the proxy does. */
    private InviteCall start(String callId, String number) throws Exception {
        PeerConfig peer = active.config().peers().get(PEER);
        CallServices services = new CallServices(this::admission, leases,
                new CallServices.Routing(pacer, carrier -> Optional.empty(), () -> RerouteHook.CONFIGURED_CHAIN,
                        CarrierHealth.ALWAYS_UP, CarrierResolver.open(DnsSettings.SYSTEM, time.clock())),
                messages, calls, dialogs, records::add, metrics,
                new CallTime(time::nanoTime, time.clock(), time.scheduler()));
        Request invite = invite(callId, number);
        InviteCall call = new InviteCall(services, active, invite, CallIdentity.of(invite), CALLER, legs, peer);
        assertTrue(calls.add(call));
        call.start();
        return call;
    }

    private CompletionStage<AdmissionVerdict> admission(AdmissionRequest request, RedisDownPolicy policy) {
        CompletableFuture<AdmissionVerdict> verdict = new CompletableFuture<>();
        admissions.addLast(verdict);
        return verdict;
    }

    private void admit(Outcome outcome) {
        admit(decision(outcome, Duration.ZERO));
    }

    private void admit(AdmissionDecision decision) {
        admissions.removeFirst().complete(AdmissionVerdict.of(decision));
    }

    private static AdmissionDecision decision(Outcome outcome, Duration retryAfter) {
        return new AdmissionDecision(outcome, retryAfter, Optional.empty(), Optional.empty(), 0, 0);
    }

    /** The carrier of {@code leg} answers {@code status}, as the stack hands the response to the call. */
    private void carrier(InviteCall call, RecordingLegs.Leg leg, int status, Header... extra) throws Exception {
        Response response = messageFactory.createResponse(status, leg.invite());
        if (status > Response.TRYING) {
            ((ToHeader) response.getHeader(ToHeader.NAME)).setTag("carrier-" + leg.n());
        }
        for (Header header : extra) {
            response.addHeader(header);
        }
        if (status >= 200) {
            legs.finalResponse(leg);
        }
        call.onResponse(leg, response);
    }

    /** The call ended with a refusal of the gateway's own: its status and Reason upstream, its record. */
    private Response refused(InviteCall call, int status, String reason) {
        assertEquals(CallPhase.ENDED, call.phase());
        Response last = legs.answers().get(legs.answers().size() - 1);
        assertEquals(status, last.getStatusCode());
        ReasonHeader header = (ReasonHeader) last.getHeader(ReasonHeader.NAME);
        assertNotNull(header, "the refusal says why");
        assertTrue(header.getText().contains(reason), header.getText());
        CallRecord record = records.get(records.size() - 1);
        assertEquals(status, record.finalStatus());
        assertTrue(record.reason().contains(reason), record.reason());
        assertTrue(leases.released.contains(call.identity().key()), "a call that ends unanswered frees its leases");
        assertFalse(calls.inProgress(call.identity().callId(), call.identity().fromTag()));
        return last;
    }

    private CallRecord onlyRecord() {
        assertEquals(1, records.size(), "records: " + records);
        return records.get(0);
    }

    private static List<Integer> statuses(List<Response> responses) {
        return responses.stream().map(Response::getStatusCode).toList();
    }

    private Request invite(String callId, String number) throws Exception {
        SipURI uri = addresses.createSipURI(number, "192.0.2.1");
        uri.setPort(5060);
        Address from = addresses.createAddress(addresses.createSipURI("alice", CALLER.getHostString()));
        Address to = addresses.createAddress(addresses.createSipURI(number, "192.0.2.1"));
        ViaHeader via = headers.createViaHeader(CALLER.getHostString(), CALLER.getPort(), "UDP",
                "z9hG4bK-caller-" + callId);
        Request invite = messageFactory.createRequest(uri, Request.INVITE, headers.createCallIdHeader(callId),
                headers.createCSeqHeader(1L, Request.INVITE), headers.createFromHeader(from, "caller-tag"),
                headers.createToHeader(to, null), List.of(via), headers.createMaxForwardsHeader(70));
        invite.addHeader(headers.createContactHeader(addresses.createAddress(
                addresses.createSipURI("alice", CALLER.getHostString() + ":" + CALLER.getPort()))));
        return invite;
    }

    private ActiveConfig config(double cps, RedisDownPolicy redisDown) {
        return config(cps, redisDown, false);
    }

    private ActiveConfig config(double cps, RedisDownPolicy redisDown, boolean noFailoverOnTimeout) {
        return config(cps, 1000, Duration.ofSeconds(5), redisDown, noFailoverOnTimeout);
    }

    /**
     * A peer, and a route to carrier {@code a} (at {@link #FIRST}, {@code cps}) with {@code b} (at
     * {@link #ALTERNATE}, {@code alternateCps}) next, both with {@code maxWait}.
     */
    private static ActiveConfig config(double cps, double alternateCps, Duration maxWait, RedisDownPolicy redisDown,
                                       boolean noFailoverOnTimeout) {
        TestConfigs configs = new TestConfigs(new RedisSettings(RedisMode.EMBEDDED, List.of(), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(1), "unused", 0), 5060)
                .peer(PEER, CALLER.getHostString() + "/32")
                .carrier("a", "sip:192.0.2.10:5060", cps, maxWait, ANSWER_TIMEOUT, "b")
                .carrier("b", "sip:192.0.2.20:5060", alternateCps, maxWait, ANSWER_TIMEOUT)
                .route("+1", "a")
                .redisDown(redisDown);
        if (noFailoverOnTimeout) {
            configs.noFailoverOnTimeout("a");
        }
        return new ActiveConfig(configs.build(), 1);
    }

    private static CarrierAddress address(String ip) {
        return new CarrierAddress(ip, 5060, Transport.UDP);
    }

    /** Records what the call sends, to which leg; builds each carrier INVITE as a copy with a Via of the gateway. */
    private final class RecordingLegs implements CallLegs {

        record Leg(int n, CarrierAddress to, Request invite, Duration timerC) implements CallLegs.Leg {
        }

        private record Sent(String what, Leg leg, Response response) {
        }

        private final List<Sent> sent = new ArrayList<>();
        private final List<Leg> invites = new ArrayList<>();

        List<Leg> invites() {
            return invites;
        }

        Leg onlyInvite() {
            assertEquals(1, invites.size());
            return invites.get(0);
        }

        /** The Call-IDs of the INVITEs sent to carriers, once each. */
        List<String> invitedCallIds() {
            return invites.stream().map(leg -> ((CallIdHeader) leg.invite().getHeader(CallIdHeader.NAME)).getCallId())
                    .distinct().toList();
        }

        List<Response> answers() {
            return sent.stream().filter(s -> s.what().equals("answer")).map(Sent::response).toList();
        }

        List<Response> answeredAgain() {
            return sent.stream().filter(s -> s.what().equals("answer again")).map(Sent::response).toList();
        }

        /** What went to {@code leg} after its INVITE. */
        List<String> about(Leg leg) {
            return sent.stream().filter(s -> s.leg() == leg).map(s -> s.what() + " " + leg.n()).toList();
        }

        /** Runs as each final answer is sent, to see the gateway's state at that moment. */
        Runnable whileAnswering = () -> { };

        @Override
        public void answer(Response response) {
            whileAnswering.run();
            sent.add(new Sent("answer", null, response));
        }

        @Override
        public void answerAgain(Response response) {
            sent.add(new Sent("answer again", null, response));
        }

        @Override
        public Outgoing toCarrier(Request invite, String number, String carrierId, SipUri uri, CarrierAddress to)
                throws Exception {
            Request out = (Request) invite.clone();
            SipURI target = addresses.createSipURI(number, to.ip());
            target.setPort(to.port());
            out.setRequestURI(target);
            out.addFirst(headers.createViaHeader("192.0.2.1", 5060, "UDP", "z9hG4bK-gw-" + (invites.size() + 1)));
            return new Outgoing(out, to, 1);
        }

        @Override
        public CallLegs.Leg send(Outgoing invite, Duration timerC, InviteCall call) {
            Leg leg = new Leg(invites.size() + 1, invite.to(), invite.request(), timerC);
            invites.add(leg);
            return leg;
        }

        @Override
        public void cancel(CallLegs.Leg leg, CarrierAddress to) {
            assertEquals(((Leg) leg).to(), to, "a CANCEL goes where its INVITE went");
            sent.add(new Sent("CANCEL", (Leg) leg, null));
        }

        @Override
        public void stopRetransmitting(CallLegs.Leg leg) {
            sent.add(new Sent("stop retransmitting", (Leg) leg, null));
        }

        /** The legs whose carrier sent a final response: their transaction is over, nothing to abandon. */
        private final List<Leg> answered = new ArrayList<>();

        void finalResponse(Leg leg) {
            answered.add(leg);
        }

        @Override
        public boolean abandon(CallLegs.Leg leg) {
            if (answered.contains(leg)) {
                return false;
            }
            answered.add((Leg) leg);
            sent.add(new Sent("abandon", (Leg) leg, null));
            return true;
        }

        @Override
        public void closeAnswered(CallLegs.Leg leg, Response answer, List<Address> routes) {
            sent.add(new Sent("ACK+BYE", (Leg) leg, answer));
        }
    }

    /** The call's leases: which calls released theirs; carrier leases are always granted. */
    private static final class RecordingLeases implements CallLeases {
        final List<String> released = new ArrayList<>();

        @Override
        public CompletionStage<Boolean> takeCarrier(String callId, String carrierId, int max) {
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public void releaseCarrier(String callId) {
        }

        @Override
        public void release(String callId) {
            released.add(callId);
        }

        @Override
        public CompletionStage<Long> peerCalls(String peerId, Optional<String> groupId) {
            return CompletableFuture.completedFuture(0L);
        }

        @Override
        public CompletionStage<Long> groupCalls(String groupId) {
            return CompletableFuture.completedFuture(0L);
        }

        @Override
        public CompletionStage<Long> carrierCalls(String carrierId) {
            return CompletableFuture.completedFuture(0L);
        }

        @Override
        public int held() {
            return 0;
        }

        @Override
        public int pendingReleases() {
            return 0;
        }

        @Override
        public void start(ScheduledExecutorService timers) {
        }

        @Override
        public void close(Duration wait) {
        }
    }
}
