package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 3261 figure 7, the INVITE server transaction, with RFC 6026's Accepted state, on manual time. */
// the manual loop is the thread that made the test instance: the test runs on it
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SAME_THREAD)
class InviteServerTransactionTest {

    private final Harness h = new Harness();
    private final Request invite = SipText.fromCaller("INVITE", "z9hG4bK-caller-1");

    private Request copy() {
        return SipText.fromCaller("INVITE", "z9hG4bK-caller-1");
    }

    private Request ack(String toTag) {
        return SipText.request("ACK", "sip:+15551234@192.0.2.5", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-caller-1",
                1, toTag);
    }

    // ---- Proceeding ----

    @Test
    void aNewInviteGoesToTheHandlerWhichTakesItsTransactionInProceeding() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);

        assertNotNull(server);
        assertEquals(TransactionState.PROCEEDING, server.state());
        assertSame(invite, server.request());
        assertEquals(SipText.CALLER_UDP, server.source());
        assertTrue(server.isInvite());
        assertEquals(List.of("new INVITE @0"), h.events);
        assertEquals(1, h.layer.size());
        assertEquals(0, h.loop.pendingTimers(), "Proceeding runs no timer");
    }

    @Test
    void inProceedingACopyOfTheInviteIsAbsorbedAndGetsTheLastProvisionalAgain() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        h.layer.received(copy(), SipText.CALLER_UDP);
        assertTrue(h.wire.sent().isEmpty(), "nothing to send again before a provisional");

        server.respond(SipText.response(100, invite));
        h.loop.advanceMillis(500);
        server.respond(SipText.response(180, invite));
        h.loop.advanceMillis(500);
        h.layer.received(copy(), SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0"), h.events);
        assertEquals(List.of(0L), h.wire.timesOf(100));
        assertEquals(List.of(500L, 1000L), h.wire.timesOf(180));
        assertEquals(SipText.CALLER_UDP, h.wire.last().to());
    }

    @Test
    void aTransportErrorInProceedingEndsItAndTellsTheHandler() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        h.wire.fail(message -> true);
        server.respond(SipText.response(180, invite));
        h.loop.runPending();

        assertEquals(List.of("new INVITE @0", "server transport error @0"), h.events);
        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals(0, h.layer.size());
    }

    // ---- Completed: Timers G and H ----

    @Test
    void overUdpANonTwoHundredFinalIsRetransmittedOnTimerGCappedAtT2UntilTimerHSaysNoAck() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(486, invite));
        assertEquals(TransactionState.COMPLETED, server.state());

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L, 500L, 1500L, 3500L, 7500L, 11500L, 15500L, 19500L, 23500L, 27500L, 31500L),
                h.wire.timesOf(486));
        assertEquals(List.of("new INVITE @0", "no ack @32000"), h.events);
        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals(0, h.loop.pendingTimers());
    }

    @Test
    void overTcpTheFinalIsSentOnceOnTheCallersConnectionAndTimerHStillRuns() {
        Request tcpInvite = SipText.request("INVITE", "sip:+15551234@192.0.2.5;transport=tcp",
                "SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK-caller-1", 1, null);
        ServerTransaction server = h.receive(tcpInvite, SipText.CALLER_TCP);
        server.respond(SipText.response(486, tcpInvite));

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L), h.wire.timesOf(486));
        assertEquals("caller-flow", h.wire.last().to().flow());
        assertEquals(List.of("new INVITE @0", "no ack @32000"), h.events);
    }

    @Test
    void inCompletedACopyOfTheInviteGetsTheFinalAgain() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(100, invite));
        server.respond(SipText.response(503, invite));
        h.loop.advanceMillis(200);
        h.layer.received(copy(), SipText.CALLER_UDP);

        assertEquals(List.of(0L, 200L), h.wire.timesOf(503));
        assertEquals(List.of(0L), h.wire.timesOf(100));
    }

    @Test
    void inCompletedFurtherResponsesFromTheUserAreDropped() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(486, invite));
        server.respond(SipText.response(180, invite));
        server.respond(SipText.response(200, invite));

        assertEquals(1, h.wire.sent().size());
    }

    // ---- Confirmed: Timer I ----

    @Test
    void theAckEndsTimersGAndHAndCopiesOfItAreAbsorbedUntilTimerI() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(486, invite, "own-tag"));
        h.loop.advanceMillis(600);
        h.layer.received(ack("own-tag"), SipText.CALLER_UDP);
        assertEquals(TransactionState.CONFIRMED, server.state());

        h.loop.advanceMillis(1000);
        h.layer.received(ack("own-tag"), SipText.CALLER_UDP);
        h.layer.received(copy(), SipText.CALLER_UDP);
        h.loop.advanceToMillis(600 + 4_999);
        assertEquals(TransactionState.CONFIRMED, server.state());
        h.loop.advanceToMillis(600 + 5_000); // Timer I: T4

        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals(List.of(0L, 500L), h.wire.timesOf(486));
        assertEquals(List.of("new INVITE @0"), h.events, "the ACKs and the copy were absorbed");
        assertEquals(0, h.layer.size());
    }

    @Test
    void overTcpTimerIIsZero() {
        Request tcpInvite = SipText.request("INVITE", "sip:+15551234@192.0.2.5;transport=tcp",
                "SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK-caller-1", 1, null);
        ServerTransaction server = h.receive(tcpInvite, SipText.CALLER_TCP);
        server.respond(SipText.response(486, tcpInvite, "own-tag"));
        h.layer.received(SipText.request("ACK", "sip:+15551234@192.0.2.5;transport=tcp",
                "SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK-caller-1", 1, "own-tag"), SipText.CALLER_TCP);

        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals(0, h.layer.size());
    }

    // ---- Accepted (RFC 6026): Timer L ----

    @Test
    void aTwoHundredMakesItAcceptedInviteCopiesAreAbsorbedFurtherTwoHundredsSentUntilTimerL() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(180, invite));
        h.loop.advanceMillis(1000);
        server.respond(SipText.response(200, invite, "fork-1"));
        assertEquals(TransactionState.ACCEPTED, server.state());

        h.loop.advanceMillis(500);
        h.layer.received(copy(), SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite, "fork-1")); // the carrier's retransmission, relayed
        server.respond(SipText.response(180, invite));
        server.respond(SipText.response(486, invite));

        assertEquals(List.of(1000L, 1500L), h.wire.timesOf(200));
        assertEquals(List.of(0L), h.wire.timesOf(180), "no 180 again for the copy, nor after the 2xx");
        assertTrue(h.wire.timesOf(486).isEmpty());
        assertEquals(List.of("new INVITE @0"), h.events);

        h.loop.advanceToMillis(1000 + 31_999);
        assertEquals(TransactionState.ACCEPTED, server.state());
        h.loop.advanceToMillis(1000 + 32_000); // Timer L: 64*T1
        assertEquals(TransactionState.TERMINATED, server.state());
        h.layer.received(copy(), SipText.CALLER_UDP);
        assertEquals(List.of("new INVITE @0", "new INVITE @33000"), h.events);
    }

    @Test
    void onceItOnlyAbsorbsCopiesItLetsGoOfTheRequestAndKeepsItsMethod() {
        ServerTransaction accepted = h.receive(invite, SipText.CALLER_UDP);
        assertSame(invite, accepted.request());
        accepted.respond(SipText.response(200, invite));
        assertThrows(IllegalStateException.class, accepted::request);
        assertEquals("INVITE", accepted.method());

        Request other = SipText.fromCaller("INVITE", "z9hG4bK-caller-2");
        ServerTransaction completed = h.receive(other, SipText.CALLER_UDP);
        completed.respond(SipText.response(486, other));
        assertThrows(IllegalStateException.class, completed::request);
        h.layer.received(SipText.fromCaller("INVITE", "z9hG4bK-caller-2"), SipText.CALLER_UDP);
        assertEquals(List.of(0L, 0L), h.wire.timesOf(486), "the kept response still answers a copy");
    }

    @Test
    void aTwoHundredIsNotRetransmittedByTheTransaction() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite));

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L), h.wire.timesOf(200));
    }

    @Test
    void anAckMatchingAnAcceptedTransactionGoesToTheHandler() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite, "callee"));
        Request ack = ack("callee");

        h.layer.received(ack, SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0", "ack @0"), h.events);
        assertSame(ack, h.acks.get(0));
        assertEquals(TransactionState.ACCEPTED, server.state());
    }

    @Test
    void theLingerBoundsTimerL() {
        Harness lingering = new Harness(TransactionTimers.RFC.withLinger(Duration.ofSeconds(1)));
        ServerTransaction server = lingering.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite));

        lingering.loop.advanceToMillis(1_000);

        assertEquals(TransactionState.TERMINATED, server.state());
    }

    @Test
    void aTwoHundredAfterTheTransactionIsSentStatelesslyWhereTheOthersWentAndAnythingElseIsDropped() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite));
        h.loop.advance(Duration.ofSeconds(33));
        assertEquals(TransactionState.TERMINATED, server.state());

        server.respond(SipText.response(200, invite));
        server.respond(SipText.response(486, invite));

        assertEquals(List.of(0L, 33000L), h.wire.timesOf(200));
        assertEquals(SipText.CALLER_UDP, h.wire.last().to());
        assertTrue(h.wire.timesOf(486).isEmpty());
    }

    @Test
    void aTransportErrorInAcceptedLeavesItAccepted() {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        server.respond(SipText.response(200, invite));
        h.wire.fail(message -> true);
        server.respond(SipText.response(200, invite));
        h.loop.runPending();

        assertEquals(TransactionState.ACCEPTED, server.state());
        assertEquals(List.of("new INVITE @0"), h.events);
    }

    // ---- threads ----

    @Test
    void aResponseFromAnotherThreadIsSentOnTheLoop() throws Exception {
        ServerTransaction server = h.receive(invite, SipText.CALLER_UDP);
        Thread other = new Thread(() -> server.respond(SipText.response(180, invite)));
        other.start();
        other.join();
        assertTrue(h.wire.sent().isEmpty());

        h.loop.runPending();

        assertEquals(List.of(0L), h.wire.timesOf(180));
    }

    @Test
    void aTransactionTakenOnAnotherThreadAbsorbsTheCopiesThatComeAfterIt() throws Exception {
        h.layer.received(invite, SipText.CALLER_UDP);
        IncomingRequest incoming = h.incoming.get(0);
        ServerTransaction[] taken = new ServerTransaction[1];
        Thread other = new Thread(() -> taken[0] = incoming.transaction());
        other.start();
        other.join();
        h.loop.runPending();

        h.layer.received(copy(), SipText.CALLER_UDP);

        assertEquals(List.of("new INVITE @0"), h.events);
        assertSame(taken[0], incoming.transaction());
    }
}
