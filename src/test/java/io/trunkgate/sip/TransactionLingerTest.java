package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.trunkgate.config.Limit;
import io.trunkgate.config.SipLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A finished transaction is kept only as long as {@code sip.transaction-linger} (RFC 3261's Timer J would keep a
 * BYE's 32 s over UDP), an answered INVITE's 1 s (JAIN-SIP kept it 8 s); a copy of an answered INVITE that comes
 * after its transaction is dropped, not sent to the carrier again as a new call.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionLingerTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;
    /** Well under JAIN-SIP's own 8 s and 32 s, well over the 1 s configured and the 1 s after a 2xx. */
    private static final Duration GONE_WITHIN = Duration.ofSeconds(6);

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent carrier;
    private AdminClient admin;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.81", "UDP");
        carrier = SipAgent.start("127.0.0.82", "UDP");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("linger", port)
                .peer("peer", "127.0.0.81", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("+1", "carrier")
                .sipLimits(new SipLimits(16 * 1024, 16, Duration.ofHours(1), Duration.ZERO, 1000, Duration.ofSeconds(1)))
                .build());
        admin = new AdminClient(gateway.adminAddress());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(caller, carrier).parallel().forEach(SipAgent::close);
    }

    private double metric(String name, Map<String, String> labels) throws Exception {
        return Metrics.value(admin.get("/metrics").body(), name, labels).orElse(-1);
    }

    private double transactionsWhenGone() throws Exception {
        return Await.until(GONE_WITHIN, () -> metric("trunkgate_sip_stack_transactions", Map.of()), n -> n == 0);
    }

    @Test
    void finishedTransactionsGoAfterTheLingerAndALateCopyOfTheInviteIsNotACall() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+15550001");
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "the call got no answer");
        assertEquals(200, answer.getStatusCode());
        call.ack();
        assertEquals(0, transactionsWhenGone(), "the answered INVITE's transactions are still kept");

        byte[] copy = call.inviteRequest().toString().getBytes(StandardCharsets.UTF_8);
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(caller.host()), 0))) {
            socket.send(new DatagramPacket(copy, copy.length, InetAddress.getByName(GW), port));
        }
        assertEquals(1.0, Await.until(GONE_WITHIN,
                () -> metric("trunkgate_sip_requests_absorbed_total", Map.of("reason", "answered_invite")),
                n -> n == 1), "the copy was not dropped as one of an answered INVITE");
        assertEquals(1, carrier.received(Request.INVITE, call.callId()), "the copy went to the carrier as a new call");

        Response bye = call.bye(WAIT_MS);
        assertNotNull(bye, "no answer to the BYE");
        assertEquals(200, bye.getStatusCode());
        assertEquals(0, transactionsWhenGone(), "the BYE's transactions are still kept");
    }
}
