package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.trunkgate.testing.SipSockets;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;

/** Calls to a carrier that takes TCP: every INVITE, ACK and BYE arrives, all over one connection. */
class TcpCarrierTest {

    private static final long WAIT_MS = 5000;

    @Test
    void twentyCallsToATcpCarrierAllCompleteOverOneConnection() throws Exception {
        SipAgent caller = SipAgent.start("127.0.0.111");
        SipAgent carrier = SipAgent.start("127.0.0.112", "TCP");
        int port = RedisServerProcess.freePort();
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("tcp-carrier", port)
                .instance("tcp-carrier-gw")
                .peer("caller", "127.0.0.111", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("tcp", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "tcp")
                .build())) {
            for (int i = 0; i < 20; i++) {
                SipAgent.Call call = caller.invite("127.0.0.1", port, "+4420" + i);
                Response answer = call.awaitFinal(WAIT_MS);
                assertNotNull(answer, "call " + i + " got no answer");
                assertEquals(200, answer.getStatusCode(), "call " + i);
                call.ack();
                Response bye = call.bye(WAIT_MS);
                assertNotNull(bye, "call " + i + ": no answer to its BYE");
                assertEquals(200, bye.getStatusCode(), "call " + i + ": BYE");
            }
            assertEquals(true, carrier.await(Request.ACK, 20, WAIT_MS), "ACKs at the carrier: "
                    + carrier.received(Request.ACK).size());
            assertEquals(20, carrier.received(Request.INVITE).size(), "INVITEs at the carrier");
            assertEquals(20, carrier.received(Request.BYE).size(), "BYEs at the carrier");
            assertEquals(1, SipSockets.establishedTo(carrier.host(), carrier.port()),
                    "connections from the gateway to the carrier");
        } finally {
            caller.close();
            carrier.close();
        }
    }
}
