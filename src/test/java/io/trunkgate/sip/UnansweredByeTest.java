package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.RecordingCarrier;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import io.trunkgate.testing.UdpInbox.Datagram;
import java.time.Duration;
import java.util.Map;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A BYE relayed to a callee that never answers it (gone, or its agent stalled and gave up on the call): the
 * relayed BYE's transaction times out (Timer F, 64*T1 = 32 s), and the call ends there, its dialog gone and its
 * leases released, instead of staying up until the gateway stops.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnansweredByeTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 15_000;
    /** Timer F (32 s), plus the stack's timer ticks on a busy machine. */
    private static final long BYE_TIMEOUT_MS = 60_000;

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private RecordingCarrier mute;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.191");
        mute = RecordingCarrier.start("127.0.0.192");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("unanswered-bye", port)
                .peer("caller", "127.0.0.191", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("mute", mute.uri(), 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+4", "mute")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        caller.close();
        mute.close();
    }

    @Test
    void aByeTheCalleeNeverAnswersEndsTheCallAtItsTimeout() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+4555");
        assertTrue(mute.awaitRequests(Request.INVITE, call.callId(), 1, WAIT_MS), "the INVITE reached the carrier");
        Datagram invite = mute.requests(Request.INVITE, call.callId()).get(0);
        mute.respond(invite, 200, "OK", "mute");
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no answer");
        assertEquals(200, answer.getStatusCode());
        call.ack();
        assertTrue(mute.awaitRequests(Request.ACK, call.callId(), 1, WAIT_MS), "the ACK was relayed");
        assertEquals(1.0, dialogs(), "the call is up");

        call.sendBye();
        assertTrue(mute.awaitRequests(Request.BYE, call.callId(), 1, WAIT_MS), "the BYE was relayed");
        Await.atMost(Duration.ofMillis(BYE_TIMEOUT_MS)).alias("the dialog ends after its unanswered BYE")
                .until(() -> dialogs() == 0);
    }

    private double dialogs() {
        return Metrics.value(gateway.metrics().scrape(), "trunkgate_sip_dialogs", Map.of()).orElse(-1);
    }
}
