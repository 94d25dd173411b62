package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Graceful drain: on shutdown (SIGTERM runs Gateway.close) or POST /api/drain, /health says "draining" at once,
 * new INVITEs get 503, and established calls keep working, their BYEs relayed from either side; the gateway stops
 * as soon as the last call has ended, well before the drain timeout.
 */
class DrainTest {

    private static final String TOKEN = "drain-token";
    private static final long WAIT_MS = 5000;

    private SipAgent caller;
    private SipAgent carrier;
    private Gateway gateway;
    private int port;

    @BeforeEach
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.121");
        carrier = SipAgent.start("127.0.0.122");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("drain", port)
                .instance("drain-gw-" + UUID.randomUUID())
                .drainTimeout(Duration.ofSeconds(60))
                .adminToken(TOKEN)
                .peer("caller", "127.0.0.121", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build());
    }

    @AfterEach
    void stop() {
        gateway.endDrain();
        gateway.close();
        caller.close();
        carrier.close();
    }

    private SipAgent.Call connect(String number) throws Exception {
        SipAgent.Call call = caller.invite("127.0.0.1", port, number);
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();
        return call;
    }

    private static AdminClient.Answer awaitDraining(AdminClient admin) {
        return Await.until(Duration.ofMillis(WAIT_MS), () -> admin.get("/health"),
                health -> health.json().path("status").asText().equals("draining"));
    }

    @Test
    void shutdownDrainsEstablishedCallsThenStopsWhenTheLastEnds() throws Exception {
        SipAgent.Call first = connect("+4401");
        SipAgent.Call second = connect("+4402");
        AdminClient admin = new AdminClient(gateway.adminAddress());

        CompletableFuture<Void> closed = CompletableFuture.runAsync(gateway::close);
        AdminClient.Answer health = awaitDraining(admin);
        assertEquals(503, health.status(), "a draining gateway is not ready: " + health.body());
        assertEquals("draining", health.json().path("status").asText());
        assertEquals(2, health.json().path("callsInProgress").asInt(), health.body());

        Response refused = caller.invite("127.0.0.1", port, "+4403").awaitFinal(WAIT_MS);
        assertNotNull(refused, "a new INVITE while draining got no answer");
        assertEquals(503, refused.getStatusCode());

        // The drain waits for the calls, not for a time: each BYE still goes through, and the gateway runs on
        // until the last call has ended.
        Response callerBye = first.bye(WAIT_MS);
        assertNotNull(callerBye, "no answer to the caller's BYE while draining");
        assertEquals(200, callerBye.getStatusCode());
        assertFalse(closed.isDone(), "the gateway stopped while a call was still up");
        Response calleeBye = carrier.byeFromCallee(second.callId(), WAIT_MS);
        assertNotNull(calleeBye, "no answer to the callee's BYE while draining");
        assertEquals(200, calleeBye.getStatusCode());

        long lastCallEnded = System.nanoTime();
        closed.get(30, TimeUnit.SECONDS);
        long stoppedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastCallEnded);
        assertTrue(stoppedAfterMs < 10_000, "stopped " + stoppedAfterMs + " ms after the last call (drain timeout 60 s)");
    }

    @Test
    void postDrainRefusesNewCallsAndKeepsRunning() throws Exception {
        SipAgent.Call up = connect("+4411");
        AdminClient admin = new AdminClient(gateway.adminAddress());
        assertEquals(401, admin.send("POST", "/api/drain", "", null).status(), "drain needs the token");
        AdminClient.Answer answer = admin.send("POST", "/api/drain", "", TOKEN);
        assertEquals(202, answer.status(), answer.body());
        assertEquals(1, answer.json().path("callsInProgress").asInt(), answer.body());
        assertEquals("draining", awaitDraining(admin).json().path("status").asText());
        assertEquals(503, caller.invite("127.0.0.1", port, "+4412").awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(200, up.bye(WAIT_MS).getStatusCode(), "the established call still ends normally");
    }
}
