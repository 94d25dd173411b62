package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.RecordingCarrier;
import io.trunkgate.testing.UdpInbox.Datagram;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A carrier the gateway left while it had sent nothing (at answer-timeout, for the alternate or with a 408; or
 * on the caller's CANCEL) gets no further copy of the INVITE, and what it sends late is closed: a provisional
 * gets a CANCEL, a 2xx an ACK and a BYE. The carrier is a raw socket that records every datagram, so each copy
 * shows.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SilentCarrierTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 15_000;
    /** RFC 3261's T1, which the gateway's stack keeps: Timer A's first interval. */
    private static final long T1_MS = 500;
    /** Beyond when a copy is due: the stack's timer runs up to a 20 ms tick late, more on a busy machine. */
    private static final long MARGIN_MS = 1000;

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent alternate;
    private RecordingCarrier silent;
    private RecordingCarrier slow;
    private RecordingCarrier alone;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.185");
        alternate = SipAgent.start("127.0.0.186");
        alternate.behave(Behaviour.ANSWER);
        silent = RecordingCarrier.start("127.0.0.187");
        slow = RecordingCarrier.start("127.0.0.188");
        alone = RecordingCarrier.start("127.0.0.189");
        port = RedisServerProcess.freePort();
        Duration wait = Duration.ofSeconds(1);
        gateway = Gateway.start(TestConfigs.onSharedRedis("silent-carrier", port)
                .peer("caller", "127.0.0.185", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("silent", silent.uri(), 1000, wait, Duration.ofMillis(400), "alternate")
                .carrier("alternate", alternate, 1000, wait, Duration.ofSeconds(5))
                .carrier("slow", slow.uri(), 1000, wait, Duration.ofSeconds(20))
                .carrier("alone", alone.uri(), 1000, wait, Duration.ofMillis(400))
                .noFailoverOnTimeout("alone")
                .route("+1", "silent")
                .route("+2", "slow")
                .route("+3", "alone")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        caller.close();
        alternate.close();
        silent.close();
        slow.close();
        alone.close();
    }

    @Test
    void aCarrierLeftForItsSilenceGetsNoFurtherCopyAndItsLateRingIsCancelled() throws Exception {
        SipAgent.Call call = answeredByTheAlternate("+1555");
        Datagram invite = noFurtherCopy(silent, call.callId()).get(0);

        silent.respond(invite, 180, "Ringing", "late");
        Datagram cancel = awaitCancel(silent, invite);
        // The carrier ends its INVITE (RFC 3261 §9.2): 200 to the CANCEL, 487 to the INVITE, which the gateway ACKs.
        silent.respond(cancel, 200, "OK", "late");
        silent.respond(invite, 487, "Request Terminated", "late");
        assertTrue(silent.awaitRequests(Request.ACK, call.callId(), 1, WAIT_MS), "the 487 is ACKed");
        assertEquals(200, call.bye(WAIT_MS).getStatusCode(), "the call on the alternate is up");
    }

    @Test
    void aLateAnswerFromACarrierLeftForItsSilenceIsAckedAndHungUp() throws Exception {
        SipAgent.Call call = answeredByTheAlternate("+1556");
        Datagram invite = noFurtherCopy(silent, call.callId()).get(0);

        silent.respond(invite, 200, "OK", "late");
        assertTrue(silent.awaitRequests(Request.ACK, call.callId(), 1, WAIT_MS), "the late 200 is ACKed");
        assertTrue(silent.awaitRequests(Request.BYE, call.callId(), 1, WAIT_MS), "and its leg ended");
        assertEquals(0, silent.requests(Request.CANCEL, call.callId()).size(), "a 2xx gets no CANCEL");
        // a copy of the late 200 (the carrier had not seen the ACK yet) is not the caller's: its BYE's answer comes
        // back after the copy reached the gateway, on the call's loop, so the relayed copy would be there by then
        silent.respond(invite, 200, "OK", "late");
        assertEquals(200, call.bye(WAIT_MS).getStatusCode(), "the call on the alternate is up");
        assertTrue(call.responses().stream()
                        .noneMatch(r -> "late".equals(((ToHeader) r.getHeader(ToHeader.NAME)).getTag())),
                "the caller never gets the left carrier's answer: " + call.responses());
    }

    @Test
    void aCancelBeforeAnyResponseStopsTheCopiesAndALateRingIsCancelled() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+2555");
        assertTrue(slow.awaitRequests(Request.INVITE, call.callId(), 1, WAIT_MS), "the INVITE reached the carrier");
        call.cancel();
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer to the cancelled INVITE");
        assertEquals(487, answer.getStatusCode());
        Datagram invite = noFurtherCopy(slow, call.callId()).get(0);

        slow.respond(invite, 180, "Ringing", "late");
        awaitCancel(slow, invite);
    }

    @Test
    void aCarrierSilentPastAnswerTimeoutWithoutFailoverGetsNoFurtherCopyAndItsLateRingIsCancelled()
            throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+3555");
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer");
        assertEquals(408, answer.getStatusCode(), "no failover on silence: 408 at answer-timeout");
        Datagram invite = noFurtherCopy(alone, call.callId()).get(0);

        alone.respond(invite, 180, "Ringing", "late");
        awaitCancel(alone, invite);
    }

    /** A call to {@code number}, which the silent carrier does not answer: answered by the alternate, and ACKed. */
    private SipAgent.Call answeredByTheAlternate(String number) throws Exception {
        SipAgent.Call call = caller.invite(GW, port, number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer");
        assertEquals(200, answer.getStatusCode(), "answered by the alternate after answer-timeout");
        assertEquals(1, alternate.received(Request.INVITE, call.callId()), "the call failed over");
        call.ack();
        return call;
    }

    /**
     * The copies of the call's INVITE the carrier has got, once none further came. Had the stack kept sending
     * them, the next would come T1, 3 T1, 7 T1, ... after the first (RFC 3261 §17.1.1.2, Timer A doubling): so
     * {@code e} after the first, one is due by {@code 2e + T1}. The wait runs to then and a margin; a copy ends
     * it at once.
     */
    private static List<Datagram> noFurtherCopy(RecordingCarrier carrier, String callId) throws Exception {
        List<Datagram> copies = carrier.requests(Request.INVITE, callId);
        assertFalse(copies.isEmpty(), "the carrier got the INVITE");
        long sinceFirstMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - copies.get(0).atNanos());
        long dueWithinMs = sinceFirstMs + T1_MS; // 2e + T1 after the first, from now
        assertFalse(carrier.awaitRequests(Request.INVITE, callId, copies.size() + 1, dueWithinMs + MARGIN_MS),
                () -> "a copy of the INVITE came after the gateway left the carrier, at "
                        + TimeUnit.NANOSECONDS.toMillis(carrier.requests(Request.INVITE, callId).get(copies.size())
                        .atNanos() - copies.get(0).atNanos()) + " ms after the first; " + copies.size() + " before");
        return copies;
    }

    /** The CANCEL of {@code invite} (RFC 3261 §9.1: its Request-URI, Call-ID, CSeq number and top Via branch). */
    private static Datagram awaitCancel(RecordingCarrier carrier, Datagram invite) throws Exception {
        assertTrue(carrier.awaitRequests(Request.CANCEL, invite.callId(), 1, WAIT_MS), "the late 180 gets a CANCEL");
        Datagram cancel = carrier.requests(Request.CANCEL, invite.callId()).get(0);
        assertEquals(invite.requestUri(), cancel.requestUri());
        assertEquals(invite.topBranch(), cancel.topBranch());
        assertEquals(invite.header("CSeq").split("\\s+")[0] + " CANCEL", cancel.header("CSeq"));
        return cancel;
    }
}
