package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.stream.Stream;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The two timers of a carrier attempt: answer-timeout (no 180/183: fail over) and ring-timeout (ringing
 * without a final answer: give up, no failover); and a CANCEL before the carrier's first response.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarrierTimersTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 15_000;

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent longRinger;
    private SipAgent neverAnswers;
    private SipAgent lateAnswer;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.81");
        longRinger = SipAgent.start("127.0.0.82");
        neverAnswers = SipAgent.start("127.0.0.83");
        lateAnswer = SipAgent.start("127.0.0.84");
        longRinger.behave(Behaviour.RING_THEN_ANSWER);
        longRinger.answerAfter(Duration.ofMillis(5000));
        neverAnswers.behave(Behaviour.RING);
        lateAnswer.behave(Behaviour.ANSWER_LATE);
        lateAnswer.answerAfter(Duration.ofMillis(1500));
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("timers", port)
                .peer("caller", "127.0.0.81", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("long-ringer", longRinger, 1000, Duration.ofSeconds(1), Duration.ofSeconds(3),
                        Duration.ofSeconds(30), "never-answers")
                .carrier("never-answers", neverAnswers, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5),
                        Duration.ofSeconds(1))
                .carrier("late-answer", lateAnswer, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+1", "long-ringer")
                .route("+2", "never-answers")
                .route("+3", "late-answer")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(caller, longRinger, neverAnswers, lateAnswer).parallel().forEach(SipAgent::close);
    }

    private static void awaitReceived(SipAgent agent, String method, String callId) throws InterruptedException {
        assertEquals(1, agent.await(method, callId, 1, WAIT_MS), method + " of " + callId + " at " + agent.host());
    }

    @Test
    void aCallRingingPastAnswerTimeoutIsAnsweredNotFailedOver() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+1555");
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer");
        assertEquals(200, answer.getStatusCode(), "a call ringing 5 s with answer-timeout 3 s");
        assertEquals(0, neverAnswers.received(Request.INVITE, call.callId()), "the alternate was not tried");
        assertEquals(0, longRinger.received(Request.CANCEL, call.callId()), "the ringing carrier was not cancelled");
        call.ack();
        assertEquals(200, call.bye(WAIT_MS).getStatusCode());
    }

    @Test
    void aCancelBeforeAnyResponseIsAnsweredAtOnceAndALateAnswerIsHungUp() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+3555");
        assertEquals(100, call.next(WAIT_MS).getStatusCode(), "the gateway's 100 Trying");
        awaitReceived(lateAnswer, Request.INVITE, call.callId());
        call.cancel();
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final answer to the cancelled INVITE");
        assertEquals(487, answer.getStatusCode());
        assertEquals(0, lateAnswer.received(Request.ACK, call.callId()),
                "487 came before the carrier's answer (1.5 s after the INVITE), not after it");
        // The carrier answers 200 anyway (it ignores the CANCEL): the gateway closes that leg itself.
        awaitReceived(lateAnswer, Request.ACK, call.callId());
        awaitReceived(lateAnswer, Request.BYE, call.callId());
    }
}
