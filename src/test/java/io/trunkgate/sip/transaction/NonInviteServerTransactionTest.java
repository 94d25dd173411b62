package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RFC 3261 figure 8, the non-INVITE server transaction, on manual time. */
// the manual loop is the thread that made the test instance: the test runs on it
@Timeout(value = 3, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SAME_THREAD)
class NonInviteServerTransactionTest {

    private final Harness h = new Harness();
    private final Request bye = bye();

    private static Request bye() {
        return SipText.request("BYE", "sip:+15551234@192.0.2.5", "SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-bye-9", 2,
                "callee");
    }

    @Test
    void inTryingACopyIsAbsorbedAndNothingIsSent() {
        ServerTransaction server = h.receive(bye, SipText.CALLER_UDP);
        h.layer.received(bye(), SipText.CALLER_UDP);

        assertEquals(TransactionState.TRYING, server.state());
        assertFalse(server.isInvite());
        assertEquals(List.of("new BYE @0"), h.events);
        assertTrue(h.wire.sent().isEmpty());
        assertEquals(0, h.loop.pendingTimers());
    }

    @Test
    void inProceedingACopyGetsTheLastProvisionalAgain() {
        ServerTransaction server = h.receive(bye, SipText.CALLER_UDP);
        server.respond(SipText.response(100, bye));
        assertEquals(TransactionState.PROCEEDING, server.state());
        h.loop.advanceMillis(300);
        h.layer.received(bye(), SipText.CALLER_UDP);

        assertEquals(List.of(0L, 300L), h.wire.timesOf(100));
        assertEquals(List.of("new BYE @0"), h.events);
    }

    @Test
    void overUdpAFinalResponseIsSentOnceAndEachCopyGetsItAgainUntilTimerJ() {
        ServerTransaction server = h.receive(bye, SipText.CALLER_UDP);
        server.respond(SipText.response(100, bye));
        server.respond(SipText.response(200, bye));
        assertEquals(TransactionState.COMPLETED, server.state());
        h.loop.advanceMillis(2000);
        h.layer.received(bye(), SipText.CALLER_UDP);
        server.respond(SipText.response(500, bye));

        h.loop.advanceToMillis(31_999);
        assertEquals(TransactionState.COMPLETED, server.state());
        h.loop.advanceToMillis(32_000); // Timer J: 64*T1 over UDP
        assertEquals(TransactionState.TERMINATED, server.state());

        assertEquals(List.of(0L, 2000L), h.wire.timesOf(200));
        assertTrue(h.wire.timesOf(500).isEmpty(), "a second final response is dropped");
        assertThrows(IllegalStateException.class, server::request, "the BYE is let go with its final response");
        assertEquals("BYE", server.method());
        h.layer.received(bye(), SipText.CALLER_UDP);
        assertEquals(List.of("new BYE @0", "new BYE @32000"), h.events);
    }

    @Test
    void aFinalFromTryingCompletesItToo() {
        ServerTransaction server = h.receive(bye, SipText.CALLER_UDP);
        server.respond(SipText.response(481, bye));

        assertEquals(TransactionState.COMPLETED, server.state());
        assertEquals(List.of(0L), h.wire.timesOf(481));
    }

    @Test
    void overTcpTimerJIsZero() {
        Request tcpBye = SipText.request("BYE", "sip:+15551234@192.0.2.5;transport=tcp",
                "SIP/2.0/TCP 192.0.2.1:5060;branch=z9hG4bK-bye-9", 2, "callee");
        ServerTransaction server = h.receive(tcpBye, SipText.CALLER_TCP);
        server.respond(SipText.response(200, tcpBye));

        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals("caller-flow", h.wire.last().to().flow());
        assertEquals(0, h.layer.size());
    }

    @Test
    void theLingerBoundsTimerJ() {
        Harness lingering = new Harness(TransactionTimers.RFC.withLinger(Duration.ofSeconds(5)));
        ServerTransaction server = lingering.receive(bye, SipText.CALLER_UDP);
        server.respond(SipText.response(200, bye));

        lingering.loop.advanceToMillis(4_999);
        assertEquals(TransactionState.COMPLETED, server.state());
        lingering.loop.advanceToMillis(5_000);
        assertEquals(TransactionState.TERMINATED, server.state());
    }

    @Test
    void aTransportErrorEndsItAndTellsTheHandler() {
        ServerTransaction server = h.receive(bye, SipText.CALLER_UDP);
        h.wire.fail(message -> true);
        server.respond(SipText.response(200, bye));
        h.loop.runPending();

        assertEquals(List.of("new BYE @0", "server transport error @0"), h.events);
        assertEquals(TransactionState.TERMINATED, server.state());
        assertEquals(0, h.loop.pendingTimers());
    }

    @Test
    void aRequestNobodyTookATransactionForGoesToTheHandlerEachTimeAndCanBeAnsweredStatelessly() {
        Request options = SipText.fromCaller("OPTIONS", "z9hG4bK-opt-1");
        h.layer.received(options, SipText.CALLER_UDP);
        h.incoming.get(0).answerStatelessly(SipText.response(200, options));
        h.layer.received(SipText.fromCaller("OPTIONS", "z9hG4bK-opt-1"), SipText.CALLER_UDP);

        assertEquals(List.of("new OPTIONS @0", "new OPTIONS @0"), h.events);
        assertEquals(List.of(0L), h.wire.timesOf(200));
        assertEquals(SipText.CALLER_UDP, h.wire.last().to());
        assertEquals(0, h.layer.size());
    }
}
