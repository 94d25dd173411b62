package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 3261 figure 6, the non-INVITE client transaction, on manual time. */
// the manual loop is the thread that made the test instance: the test runs on it
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SAME_THREAD)
class NonInviteClientTransactionTest {

    private final Harness h = new Harness();
    private final Request bye = SipText.request("BYE", "sip:bob@192.0.2.10:5060",
            "SIP/2.0/UDP 192.0.2.5:5060;branch=z9hG4bK-bye-1", 2, "callee");

    @Test
    void overUdpTimerERetransmitsAtT1DoublingCappedAtT2UntilTimerFEndsItAt64T1() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L, 500L, 1500L, 3500L, 7500L, 11500L, 15500L, 19500L, 23500L, 27500L, 31500L),
                h.wire.timesOf("BYE"));
        assertEquals(List.of("timeout TIMER_F @32000"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.layer.size());
        assertEquals(0, h.loop.pendingTimers());
    }

    @Test
    void inProceedingTimerERetransmitsEveryT2AndTimerFStillEndsIt() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        h.loop.advanceMillis(600);
        h.carrierSends(SipText.response(100, bye));
        assertEquals(TransactionState.PROCEEDING, client.state());

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L, 500L, 1500L, 5500L, 9500L, 13500L, 17500L, 21500L, 25500L, 29500L),
                h.wire.timesOf("BYE"));
        assertEquals(List.of("provisional 100 @600", "timeout TIMER_F @32000"), h.events);
    }

    @Test
    void overTcpTheRequestIsSentOnceAndTimerFStillEndsIt() {
        Request tcpBye = SipText.request("BYE", "sip:bob@192.0.2.10:5060;transport=tcp",
                "SIP/2.0/TCP 192.0.2.5:5060;branch=z9hG4bK-bye-1", 2, "callee");
        h.send(tcpBye, SipText.CARRIER_TCP);

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L), h.wire.timesOf("BYE"));
        assertEquals(List.of("timeout TIMER_F @32000"), h.events);
    }

    @Test
    void provisionalsInTryingAndProceedingGoToTheListener() {
        h.send(bye, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(100, bye));
        h.carrierSends(SipText.response(183, bye));

        assertEquals(List.of("provisional 100 @0", "provisional 183 @0"), h.events);
    }

    @Test
    void aFinalResponseCompletesItStopsTimersEAndFAndCopiesAreAbsorbedUntilTimerK() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        h.loop.advanceMillis(700);
        h.carrierSends(SipText.response(200, bye));
        h.loop.advanceMillis(1000);
        h.carrierSends(SipText.response(200, bye));
        h.carrierSends(SipText.response(100, bye));

        assertEquals(TransactionState.COMPLETED, client.state());
        assertEquals(List.of("final 200 @700"), h.events);
        h.loop.advanceToMillis(700 + 4_999);
        assertEquals(TransactionState.COMPLETED, client.state());
        h.loop.advanceToMillis(700 + 5_000); // Timer K: T4
        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(List.of(0L, 500L), h.wire.timesOf("BYE"));
        h.carrierSends(SipText.response(200, bye));
        assertEquals(List.of("final 200 @700", "stray 200 @5700"), h.events);
    }

    @Test
    void aFinalResponseFromProceedingCompletesItToo() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        h.carrierSends(SipText.response(100, bye));
        h.carrierSends(SipText.response(481, bye));

        assertEquals(TransactionState.COMPLETED, client.state());
        assertEquals(List.of("provisional 100 @0", "final 481 @0"), h.events);
        assertTrue(h.wire.requests("ACK").isEmpty(), "only an INVITE's final response is ACKed");
    }

    @Test
    void overTcpTimerKIsZero() {
        Request tcpBye = SipText.request("BYE", "sip:bob@192.0.2.10:5060;transport=tcp",
                "SIP/2.0/TCP 192.0.2.5:5060;branch=z9hG4bK-bye-1", 2, "callee");
        ClientTransaction client = h.send(tcpBye, SipText.CARRIER_TCP);
        h.carrierSends(SipText.response(200, tcpBye));

        assertEquals(TransactionState.TERMINATED, client.state());
        assertEquals(0, h.layer.size());
    }

    @Test
    void aFailedSendEndsItWithATransportError() {
        h.wire.fail(message -> true);
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        h.loop.runPending();

        assertEquals(List.of("transport error @0"), h.events);
        assertEquals(TransactionState.TERMINATED, client.state());
    }

    @Test
    void aSendThatFailsOnlyAfterTheFinalResponseCameIsNoTransportError() {
        java.util.concurrent.CompletableFuture<Void> write = new java.util.concurrent.CompletableFuture<>();
        Harness slow = new Harness();
        TransactionLayer layer = TransactionLayer.create((message, to) -> write, callId -> slow.loop,
                TransactionTimers.RFC, null, null);
        ClientTransaction client = layer.send(bye, SipText.CARRIER_UDP, slow.listener);
        layer.received(SipText.response(200, bye), SipText.CARRIER_UDP);
        write.completeExceptionally(new java.io.IOException("late"));
        slow.loop.runPending();

        assertEquals(List.of("final 200 @0"), slow.events);
        assertEquals(TransactionState.COMPLETED, client.state());
    }

    @Test
    void stopRetransmittingEndsTimerEAndKeepsTimerF() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        h.loop.advanceMillis(600);
        client.stopRetransmitting();

        h.loop.advance(Duration.ofSeconds(40));

        assertEquals(List.of(0L, 500L), h.wire.timesOf("BYE"));
        assertEquals(List.of("timeout TIMER_F @32000"), h.events);
    }

    @Test
    void abandonEndsItWhileItWaits() {
        ClientTransaction client = h.send(bye, SipText.CARRIER_UDP);
        assertTrue(client.abandon());
        assertFalse(client.abandon());
        h.carrierSends(SipText.response(200, bye));

        assertEquals(List.of("stray 200 @0"), h.events);
        assertFalse(client.isInvite());
    }
}
