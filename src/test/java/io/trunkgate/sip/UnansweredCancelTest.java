package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.SipLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
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
 * A carrier that rings and then answers neither the CANCEL nor the INVITE: 64*T1 after the CANCEL the gateway ends
 * the INVITE's transaction (RFC 3261 §9.1) and the caller hears its 487, and the stack holds no transaction of the
 * call afterwards. Before, the caller waited for ring-timeout and the transaction stayed in the stack for good.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class UnansweredCancelTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;
    /** The call's 487 comes 64*T1 after the CANCEL; the stack's timer and a busy machine add to that. */
    private static final long CANCEL_ANSWER_MS = InviteCall.CANCEL_UNANSWERED.toMillis() + 8000;

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private RecordingCarrier carrier;
    private AdminClient admin;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.191");
        carrier = RecordingCarrier.start("127.0.0.192");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("unanswered-cancel", port)
                .peer("caller", "127.0.0.191", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("deaf", carrier.uri(), 1000, Duration.ofSeconds(1), Duration.ofSeconds(20))
                .route("+1", "deaf")
                .sipLimits(new SipLimits(16 * 1024, 16, Duration.ofHours(1), Duration.ZERO, 1000, Duration.ofSeconds(1)))
                .build());
        admin = new AdminClient(gateway.adminAddress());
    }

    @AfterAll
    void stop() {
        gateway.close();
        caller.close();
        carrier.close();
    }

    @Test
    void aRingingCallWhoseCarrierIgnoresTheCancelEndsWith487AndLeavesNoTransaction() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+15550001");
        assertTrue(carrier.awaitRequests(Request.INVITE, call.callId(), 1, WAIT_MS), "the INVITE reached the carrier");
        Datagram invite = carrier.requests(Request.INVITE, call.callId()).get(0);
        carrier.respond(invite, 180, "Ringing", "deaf");
        assertTrue(call.awaitResponses(r -> r.stream().anyMatch(response -> response.getStatusCode() == 180), WAIT_MS)
                .stream().anyMatch(response -> response.getStatusCode() == 180), "the caller heard no ringing");

        call.cancel();
        assertTrue(carrier.awaitRequests(Request.CANCEL, call.callId(), 1, WAIT_MS), "the CANCEL reached the carrier");
        Response answer = call.awaitFinal(CANCEL_ANSWER_MS);
        assertNotNull(answer, "no final answer to the cancelled INVITE");
        assertEquals(487, answer.getStatusCode());

        assertEquals(0, Await.until(Duration.ofSeconds(10),
                () -> Metrics.value(admin.get("/metrics").body(), "trunkgate_sip_stack_transactions", Map.of())
                        .orElse(-1), n -> n == 0), "a transaction of the call is still in the stack");
    }
}
