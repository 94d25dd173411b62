package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.header.CSeqHeader;
import javax.sip.header.RouteHeader;
import javax.sip.header.ToHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 3261 figure 5 with RFC 6026's Accepted state, Timer C (§16.8) and a CANCEL's wait (§9.1), on manual time. */
// the manual loop is the thread that made the test instance: the test runs on it
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SAME_THREAD)
class InviteClientTransactionTest {

    private final Harness h = new Harness();
    private final Request invite = SipText.invite("z9hG4bK-leg-1", "UDP");

    // ---- Calling: Timers A and B ----

    @Test
    void overUdpTimerARetransmitsAtT1DoublingUntilTimerBEndsItAt64T1() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L, 500L, 1500L, 3500L, 7500L, 15500L, 31500L), h.wire.timesOf("INVITE"));
        assertEquals(List.of("timeout TIMER_B @32000"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.layer.size());
        assertEquals(0, h.loop.pendingTimers());
    }

    @Test
    void aLoopThatRanLateKeepsToTimerAsScheduleAndSendsNoBurstAfterALongStall() {
        h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(400);
        h.loop.stall(300); // Timer A, due at 500, runs at 700
        h.loop.advanceToMillis(1600);
        h.loop.stall(7400); // the copies due at 3500 and 7500 go as one, at 9000, and the next 4 s later
        h.loop.advanceToMillis(22_000);

        assertEquals(List.of(0L, 700L, 1500L, 9000L, 13000L, 21000L), h.wire.timesOf("INVITE"));
    }

    @Test
    void overTcpTheInviteIsSentOnceAndTimerBStillEndsIt() {
        h.send(SipText.invite("z9hG4bK-leg-1", "TCP"), SipText.CARRIER_TCP);

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L), h.wire.timesOf("INVITE"));
        assertEquals(List.of("timeout TIMER_B @32000"), h.events);
    }

    @Test
    void theInviteGoesToThePeerItWasSentTo() {
        h.send(invite, SipText.CARRIER_UDP);
        h.loop.advance(Duration.ofSeconds(2));

        assertTrue(h.wire.sent().stream().allMatch(s -> s.to().equals(SipText.CARRIER_UDP)));
        assertTrue(h.wire.sent().stream().allMatch(s -> s.message() == invite));
    }

    @Test
    void aTransactionKeepsOneTimerPendingWhateverItWaitsFor() {
        h.send(invite, SipText.CARRIER_UDP);
        for (int i = 0; i < 12; i++) {
            h.loop.advanceMillis(1000);
            assertEquals(1, h.loop.pendingTimers(), "at " + h.loop.millis() + " ms");
        }
        h.carrierSends(SipText.response(180, invite));
        assertEquals(1, h.loop.pendingTimers()); // Timer C
    }

    // ---- Proceeding ----

    @Test
    void aProvisionalResponseStopsTimersAAndBAndGoesToTheListener() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(700);
        h.carrierSends(SipText.response(100, invite));

        h.loop.advance(Duration.ofSeconds(60));

        assertEquals(List.of(0L, 500L), h.wire.timesOf("INVITE"));
        assertEquals(List.of("provisional 100 @700"), h.events);
        assertEquals(TransactionState.PROCEEDING, client.state());
    }

    @Test
    void furtherProvisionalsAndTheFinalResponseInProceedingGoToTheListener() {
        h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(100, invite));
        h.loop.advanceMillis(1000);
        h.carrierSends(SipText.response(180, invite));
        h.carrierSends(SipText.response(183, invite));
        h.loop.advanceMillis(1000);
        h.carrierSends(SipText.response(486, invite));

        assertEquals(List.of("provisional 100 @0", "provisional 180 @1000", "provisional 183 @1000",
                "final 486 @2000"), h.events);
    }

    // ---- Completed: the ACK, Timer D ----

    @Test
    void aNonTwoHundredFinalIsAckedByTheTransactionAsRfc3261Section17113Says() {
        h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(800);
        Response busy = SipText.response(486, invite, "callee-tag");
        h.carrierSends(busy);

        List<RecordingWire.Sent> acks = h.wire.requests("ACK");
        assertEquals(1, acks.size());
        Request ack = (Request) acks.get(0).message();
        assertEquals(SipText.CARRIER_UDP, acks.get(0).to());
        assertEquals(invite.getRequestURI(), ack.getRequestURI());
        assertEquals("callee-tag", ((ToHeader) ack.getHeader(ToHeader.NAME)).getTag());
        assertEquals(1L, ((CSeqHeader) ack.getHeader(CSeqHeader.NAME)).getSeqNumber());
        assertEquals("ACK", ((CSeqHeader) ack.getHeader(CSeqHeader.NAME)).getMethod());
        List<?> vias = list(ack, ViaHeader.NAME);
        assertEquals(1, vias.size());
        assertEquals("z9hG4bK-leg-1", ((ViaHeader) vias.get(0)).getBranch());
        assertEquals(list(invite, RouteHeader.NAME).toString(), list(ack, RouteHeader.NAME).toString());
        assertEquals(invite.getHeader("Call-ID").toString(), ack.getHeader("Call-ID").toString());
        assertEquals(invite.getHeader("From").toString(), ack.getHeader("From").toString());
        assertEquals(List.of("final 486 @800"), h.events);
    }

    @Test
    void inCompletedEachCopyOfTheFinalIsAckedAgainAndAbsorbedUntilTimerD() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        Response busy = SipText.response(486, invite);
        h.carrierSends(busy);
        h.loop.advanceMillis(500);
        h.carrierSends(busy);
        h.loop.advanceMillis(1000);
        h.carrierSends(busy);

        assertEquals(List.of(0L, 500L, 1500L), h.wire.timesOf("ACK"));
        assertEquals(List.of("final 486 @0"), h.events);
        assertEquals(TransactionState.COMPLETED, client.state());

        h.loop.advanceToMillis(31_999);
        assertEquals(TransactionState.COMPLETED, client.state());
        h.loop.advanceToMillis(32_000); // Timer D: 32 s over UDP
        assertEquals(TransactionState.TERMINATED, client.state());
        h.carrierSends(busy);
        assertEquals(List.of("final 486 @0", "stray 486 @32000"), h.events);
        assertEquals(List.of(0L), h.wire.timesOf("INVITE")); // no retransmission after the final
    }

    @Test
    void overTcpTimerDIsZero() {
        Request tcpInvite = SipText.invite("z9hG4bK-leg-1", "TCP");
        ClientTransaction client = h.send(tcpInvite, SipText.CARRIER_TCP);
        h.carrierSends(SipText.response(503, tcpInvite));

        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(1, h.wire.requests("ACK").size());
        assertEquals(0, h.layer.size());
    }

    @Test
    void theLingerBoundsTimerD() {
        Harness lingering = new Harness(TransactionTimers.RFC.withLinger(Duration.ofSeconds(5)));
        ClientTransaction client = lingering.send(invite, SipText.CARRIER_UDP);
        lingering.carrierSends(SipText.response(486, invite));

        lingering.loop.advanceToMillis(4_999);
        assertEquals(TransactionState.COMPLETED, client.state());
        lingering.loop.advanceToMillis(5_000);
        assertEquals(TransactionState.TERMINATED, client.state());
    }

    // ---- Accepted (RFC 6026): Timer M ----

    @Test
    void aTwoHundredMakesItAcceptedEveryFurtherTwoHundredGoesOnAsAfterTheTransactionUntilTimerM() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(200);
        h.carrierSends(SipText.response(180, invite));
        h.carrierSends(SipText.response(200, invite, "fork-1"));
        h.loop.advanceMillis(500);
        h.carrierSends(SipText.response(200, invite, "fork-1"));
        h.carrierSends(SipText.response(200, invite, "fork-2"));

        assertEquals(TransactionState.ACCEPTED, client.state());
        // the listener (the call) hears the first; copies and other forks' answers go where a 2xx after the
        // transaction goes (the proxy relays it, RFC 3261 §16.7 step 5), so the call need not linger with it
        assertEquals(List.of("provisional 180 @200", "final 200 @200", "stray 200 @700", "stray 200 @700"),
                h.events);
        assertTrue(h.wire.requests("ACK").isEmpty(), "the ACK of a 2xx is the caller's, not the transaction's");
        assertThrows(IllegalStateException.class, client::request, "the INVITE is let go once Accepted");

        h.loop.advanceToMillis(200 + 31_999);
        assertEquals(TransactionState.ACCEPTED, client.state());
        h.loop.advanceToMillis(200 + 32_000); // Timer M: 64*T1
        assertEquals(TransactionState.TERMINATED, client.state());
        h.carrierSends(SipText.response(200, invite, "fork-1"));
        assertEquals("stray 200 @32200", h.events.get(h.events.size() - 1));
    }

    @Test
    void inAcceptedProvisionalAndNonTwoHundredResponsesAreDropped() {
        h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(200, invite));
        h.carrierSends(SipText.response(180, invite));
        h.carrierSends(SipText.response(486, invite));

        assertEquals(List.of("final 200 @0"), h.events);
        assertTrue(h.wire.requests("ACK").isEmpty());
    }

    @Test
    void theLingerBoundsTimerM() {
        Harness lingering = new Harness(TransactionTimers.RFC.withLinger(Duration.ofSeconds(1)));
        ClientTransaction client = lingering.send(invite, SipText.CARRIER_UDP);
        lingering.carrierSends(SipText.response(200, invite));

        lingering.loop.advanceToMillis(1_000);
        assertEquals(TransactionState.TERMINATED, client.state());
    }

    // ---- Timer C (§16.8) ----

    @Test
    void timerCFiringAfterAProvisionalCancelsTheInviteAndA487EndsIt() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(100);
        h.carrierSends(SipText.response(180, invite));

        h.loop.advanceToMillis(100 + 179_999);
        assertTrue(h.wire.requests("CANCEL").isEmpty());
        h.loop.advanceToMillis(100 + 180_000);
        assertEquals(List.of(180_100L), h.wire.timesOf("CANCEL"));

        h.carrierSends(SipText.response(487, invite));
        assertEquals(List.of("provisional 180 @100", "final 487 @180100"), h.events);
        assertEquals(1, h.wire.requests("ACK").size());
        assertEquals(TransactionState.COMPLETED, client.state());
    }

    @Test
    void eachProvisionalAbove100RestartsTimerCAnd100DoesNot() {
        h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(100, invite)); // Timer C stays where the INVITE set it: 180 s
        h.loop.advanceToMillis(100_000);
        h.carrierSends(SipText.response(100, invite));
        h.loop.advanceToMillis(150_000);
        h.carrierSends(SipText.response(183, invite)); // restarts it: 330 s

        h.loop.advanceToMillis(329_999);
        assertTrue(h.wire.requests("CANCEL").isEmpty());
        h.loop.advanceToMillis(330_000);
        assertEquals(List.of(330_000L), h.wire.timesOf("CANCEL"));
    }

    @Test
    void anInviteGivenALongerTimerCWaitsThatLongAfterEachProvisional() {
        h.send(invite, SipText.CARRIER_UDP, Duration.ofMinutes(10)); // a carrier whose calls may ring longer
        h.loop.advanceMillis(100);
        h.carrierSends(SipText.response(180, invite));

        h.loop.advanceToMillis(100 + 599_999);
        assertTrue(h.wire.requests("CANCEL").isEmpty());
        h.loop.advanceToMillis(100 + 600_000);
        assertEquals(List.of(600_100L), h.wire.timesOf("CANCEL"));
    }

    @Test
    void aShorterTimerCThanTheLayersLeavesItsThreeMinutes() {
        h.send(invite, SipText.CARRIER_UDP, Duration.ofSeconds(10));
        h.carrierSends(SipText.response(180, invite));

        h.loop.advanceToMillis(179_999);
        assertTrue(h.wire.requests("CANCEL").isEmpty());
        h.loop.advanceToMillis(180_000);
        assertEquals(List.of(180_000L), h.wire.timesOf("CANCEL"));
    }

    @Test
    void timerCWithoutAnyProvisionalEndsTheTransactionAsIfA408Came() {
        Harness shortC = new Harness(new TransactionTimers(Duration.ofMillis(500), Duration.ofSeconds(4),
                Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(32)));
        ClientTransaction client = shortC.send(invite, SipText.CARRIER_UDP);

        shortC.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of("timeout TIMER_C @10000"), shortC.events);
        assertEquals(TransactionState.TERMINATED, client.state());
        assertTrue(shortC.wire.requests("CANCEL").isEmpty());
    }

    // ---- CANCEL (§9.1) ----

    @Test
    void aCancelGoesWhereTheInviteWentWithItsBranchRequestUriCallIdFromToCseqNumberAndRoutes() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(180, invite));
        h.loop.advanceMillis(300);

        client.cancel();

        List<RecordingWire.Sent> cancels = h.wire.requests("CANCEL");
        assertEquals(1, cancels.size());
        assertEquals(SipText.CARRIER_UDP, cancels.get(0).to());
        Request cancel = (Request) cancels.get(0).message();
        assertEquals(invite.getRequestURI(), cancel.getRequestURI());
        assertEquals(invite.getHeader("Call-ID").toString(), cancel.getHeader("Call-ID").toString());
        assertEquals(invite.getHeader("From").toString(), cancel.getHeader("From").toString());
        assertEquals(invite.getHeader("To").toString(), cancel.getHeader("To").toString());
        assertEquals("1 CANCEL", ((CSeqHeader) cancel.getHeader(CSeqHeader.NAME)).getSeqNumber() + " "
                + ((CSeqHeader) cancel.getHeader(CSeqHeader.NAME)).getMethod());
        List<?> vias = list(cancel, ViaHeader.NAME);
        assertEquals(1, vias.size());
        assertEquals(invite.getHeader(ViaHeader.NAME).toString(), vias.get(0).toString());
        assertEquals(list(invite, RouteHeader.NAME).toString(), list(cancel, RouteHeader.NAME).toString());
    }

    @Test
    void aCancelAskedForBeforeAnyProvisionalIsSentWhenOneComes() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(100);
        client.cancel();
        h.loop.advanceMillis(1000);
        assertTrue(h.wire.requests("CANCEL").isEmpty(), "no CANCEL before a provisional response (§9.1)");

        h.carrierSends(SipText.response(100, invite));

        assertEquals(List.of(1100L), h.wire.timesOf("CANCEL"));
    }

    @Test
    void theCancelIsAClientTransactionOfItsOwnRetransmittedOnTimerEAndItsResponsesStayThere() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(180, invite));
        client.cancel();
        h.loop.advanceMillis(1600);
        assertEquals(List.of(0L, 500L, 1500L), h.wire.timesOf("CANCEL"));

        Request cancel = (Request) h.wire.requests("CANCEL").get(0).message();
        h.carrierSends(SipText.response(200, cancel));
        h.loop.advanceMillis(10_000);

        assertEquals(List.of(0L, 500L, 1500L), h.wire.timesOf("CANCEL"));
        assertEquals(List.of("provisional 180 @0"), h.events);
        assertEquals(TransactionState.PROCEEDING, client.state());
    }

    @Test
    void anInviteWithoutAFinalResponse64T1AfterItsCancelEnds() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(180, invite));
        h.loop.advanceMillis(2000);
        client.cancel();
        h.carrierSends(SipText.response(200, (Request) h.wire.requests("CANCEL").get(0).message()));

        h.loop.advanceToMillis(2000 + 31_999);
        assertEquals(TransactionState.PROCEEDING, client.state());
        h.loop.advanceToMillis(2000 + 32_000);

        assertEquals(List.of("provisional 180 @0", "timeout CANCEL_UNANSWERED @34000"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.layer.size());
    }

    @Test
    void aCancelAfterTheFinalResponseOrASecondOneSendsNothing() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(180, invite));
        client.cancel();
        client.cancel();
        assertEquals(1, h.wire.requests("CANCEL").size());

        ClientTransaction answered = h.send(SipText.invite("z9hG4bK-leg-2", "UDP"), SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(200, answered.request()));
        answered.cancel();
        assertEquals(1, h.wire.requests("CANCEL").size());
    }

    // ---- what the call path needs: stopRetransmitting, abandon ----

    @Test
    void stopRetransmittingEndsTimerAButKeepsTheResponsesAndTimerB() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(600);
        client.stopRetransmitting();
        h.loop.advanceMillis(10_000);
        assertEquals(List.of(0L, 500L), h.wire.timesOf("INVITE"));

        h.loop.advanceToMillis(32_000);
        assertEquals(List.of("timeout TIMER_B @32000"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
    }

    @Test
    void afterStopRetransmittingALateResponseStillComes() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        client.stopRetransmitting();
        h.loop.advanceMillis(20_000);
        h.carrierSends(SipText.response(180, invite));
        h.carrierSends(SipText.response(200, invite));

        assertEquals(List.of("provisional 180 @20000", "final 200 @20000"), h.events);
    }

    @Test
    void abandonEndsAWaitingTransactionSilentlyAndALaterResponseIsAStray() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(180, invite));

        assertTrue(client.abandon());

        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.loop.pendingTimers());
        assertEquals(0, h.layer.size());
        h.carrierSends(SipText.response(200, invite));
        h.loop.advance(Duration.ofMinutes(5));
        assertEquals(List.of("provisional 180 @0", "stray 200 @0"), h.events);
    }

    @Test
    void abandonAfterTheFinalResponseSaysItWasNotWaiting() {
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(486, invite));

        assertFalse(client.abandon());
        assertEquals(TransactionState.COMPLETED, client.state());
    }

    // ---- transport errors ----

    @Test
    void aFailedSendIsATransportErrorToldOnTheLoopNotWithinSend() {
        h.wire.fail(message -> true);
        ClientTransaction client = h.send(invite, SipText.CARRIER_UDP);
        assertTrue(h.events.isEmpty(), "not from within send");

        h.loop.runPending();

        assertEquals(List.of("transport error @0"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.loop.pendingTimers());
        h.loop.advance(Duration.ofSeconds(40));
        assertEquals(List.of(0L), h.wire.timesOf("INVITE"));
    }

    @Test
    void aRetransmissionThatCannotBeSentEndsTheTransaction() {
        h.send(invite, SipText.CARRIER_UDP);
        h.loop.advanceMillis(100);
        h.wire.fail(message -> true);

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of("transport error @500"), h.events);
    }

    @Test
    void anAckThatCannotBeSentEndsTheTransactionAfterItsFinalResponse() {
        h.send(invite, SipText.CARRIER_UDP);
        h.wire.fail(message -> message instanceof Request request && "ACK".equals(request.getMethod()));
        h.carrierSends(SipText.response(486, invite));
        h.loop.runPending();

        assertEquals(List.of("final 486 @0", "transport error @0"), h.events);
        assertEquals(0, h.layer.size());
    }

    @Test
    void aSendFailingLaterOnAnotherThreadIsToldOnTheLoop() throws Exception {
        CompletableFuture<Void> connect = new CompletableFuture<>();
        Harness slow = new Harness();
        TransactionLayer layer = TransactionLayer.create((message, to) -> connect, callId -> slow.loop,
                TransactionTimers.RFC, null, null);
        ClientTransaction client = layer.send(invite, SipText.CARRIER_TCP, slow.listener);
        Thread other = new Thread(() -> connect.completeExceptionally(new java.io.IOException("refused")));
        other.start();
        other.join();
        assertTrue(slow.events.isEmpty());

        slow.loop.runPending();

        assertEquals(List.of("transport error @0"), slow.events);
        assertEquals(TransactionState.TERMINATED, client.state());
    }

    // ---- threads and API misuse ----

    @Test
    void sentFromAnotherThreadTheInviteGoesOutOnTheLoop() throws Exception {
        ClientTransaction[] client = new ClientTransaction[1];
        Thread other = new Thread(() -> client[0] = h.send(invite, SipText.CARRIER_UDP));
        other.start();
        other.join();
        assertTrue(h.wire.sent().isEmpty());

        h.loop.runPending();

        assertEquals(List.of(0L), h.wire.timesOf("INVITE"));
        assertSame(invite, client[0].request());
        assertTrue(client[0].isInvite());
    }

    @Test
    void anAckOrARequestWithoutABranchOfItsOwnIsRefused() {
        assertThrows(IllegalArgumentException.class,
                () -> h.send(SipText.request("ACK", "sip:x@192.0.2.10", "SIP/2.0/UDP 192.0.2.5;branch=z9hG4bK-a", 1,
                        "t"), SipText.CARRIER_UDP));
        assertThrows(IllegalArgumentException.class,
                () -> h.send(SipText.request("INVITE", "sip:x@192.0.2.10", "SIP/2.0/UDP 192.0.2.5;branch=old", 1,
                        null), SipText.CARRIER_UDP));
        assertThrows(IllegalStateException.class,
                () -> h.send(SipText.request("OPTIONS", "sip:x@192.0.2.10", "SIP/2.0/UDP 192.0.2.5;branch=z9hG4bK-o",
                        1, null), SipText.CARRIER_UDP).cancel());
    }

    private static List<?> list(Request request, String header) {
        List<Object> values = new java.util.ArrayList<>();
        request.getHeaders(header).forEachRemaining(values::add);
        return values;
    }
}
