package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sip.ListeningPoint;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A stateful proxy relays a transaction's responses in the order they came (RFC 3261 §16.7): a carrier's 180, 183
 * and 200 sent back to back reach the caller as 180, 183, 200, for every one of 100 calls offered ten at a time; and the
 * caller's ACK and BYE sent back to back reach the carrier in that order.
 */
class ResponseOrderTest {

    private static final int CALLS = 100;
    /** Calls offered at once: enough to keep every gateway worker busy, few enough that no socket buffer overflows. */
    private static final int BATCH = 10;
    private static final long WAIT_MS = 15_000;

    @ParameterizedTest
    @ValueSource(strings = {ListeningPoint.UDP, ListeningPoint.TCP})
    void responsesAndRequestsKeepTheirOrderThroughTheGateway(String carrierTransport) throws Exception {
        SipAgent caller = SipAgent.start("127.0.0.121", ListeningPoint.UDP);
        SipAgent carrier = SipAgent.start("127.0.0.122", carrierTransport);
        carrier.behave(Behaviour.RING_PROGRESS_ANSWER);
        int port = RedisServerProcess.freePort();
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("order", port)
                .peer("caller", "127.0.0.121", Limit.exact(Duration.ofSeconds(1), 10_000))
                .carrier("fast", carrier, 10_000, Duration.ofSeconds(5), Duration.ofSeconds(5))
                .route("", "fast")
                .build())) {
            List<SipAgent.Call> calls = new ArrayList<>();
            for (int batch = 0; batch < CALLS / BATCH; batch++) {
                List<SipAgent.Call> together = new ArrayList<>();
                for (int i = 0; i < BATCH; i++) {
                    together.add(caller.invite("127.0.0.1", port, "+4430" + batch + i));
                }
                for (SipAgent.Call call : together) {
                    Response answer = call.awaitFinal(WAIT_MS);
                    assertNotNull(answer, call.callId() + ": no final answer");
                    assertEquals(List.of(180, 183, 200), call.responses().stream().map(Response::getStatusCode)
                            .filter(status -> status != 100).toList(), call.callId() + ": responses as relayed");
                    call.ack();
                    call.sendBye();
                }
                calls.addAll(together);
            }
            for (SipAgent.Call call : calls) {
                assertEquals(1, carrier.await(Request.BYE, call.callId(), 1, WAIT_MS), call.callId() + ": BYE");
                List<String> inDialog = carrier.receivedIn(call.callId()).stream()
                        .map(r -> r.request().getMethod()).filter(m -> !m.equals(Request.INVITE)).toList();
                assertEquals(List.of(Request.ACK, Request.BYE), inDialog, call.callId() + ": in-dialog requests");
            }
        } finally {
            caller.close();
            carrier.close();
        }
    }
}
