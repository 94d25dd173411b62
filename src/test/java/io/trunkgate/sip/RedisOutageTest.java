package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The real redis-server is killed under the gateway's feet and started again. */
class RedisOutageTest {

    private static final String GW = "127.0.0.1";
    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private StandaloneRedis redis;
    private SipAgent caller;
    private SipAgent carrier;
    private Gateway gateway;
    private int port;

    @BeforeEach
    void start() throws Exception {
        redis = StandaloneRedis.startPrivate();
        caller = SipAgent.start("127.0.0.41");
        carrier = SipAgent.start("127.0.0.42");
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        caller.close();
        carrier.close();
        redis.server().close();
    }

    private void startGateway(RedisDownPolicy policy, int fleetSize, long peerMax) throws Exception {
        port = RedisServerProcess.freePort();
        RedisSettings settings = new RedisSettings(RedisMode.STANDALONE, List.of(redis.server().address()),
                Optional.empty(), Optional.empty(), TIMEOUT, "tg-outage", 0);
        var config = new TestConfigs(settings, port).redisDown(policy).fleetSize(fleetSize)
                .peer("p", "127.0.0.41", Limit.exact(Duration.ofSeconds(10), peerMax))
                .carrier("c", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("", "c")
                .build();
        gateway = Gateway.start(config);
    }

    /** Sends a call and returns {final status, milliseconds from INVITE to the final response}. */
    private long[] call(String number) throws Exception {
        long start = System.nanoTime();
        Response answer = caller.invite(GW, port, number).awaitFinal(5000);
        assertNotNull(answer, "no final response for " + number);
        return new long[] {answer.getStatusCode(), (System.nanoTime() - start) / 1_000_000};
    }

    @Test
    void rejectPolicyAnswersAtOnceWhileRedisIsDownAndRecoversWithinASecond() throws Exception {
        startGateway(RedisDownPolicy.REJECT, 1, 1000);
        assertEquals(200, call("+100")[0]);

        redis.server().kill();
        List<long[]> during = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            during.add(call("+2" + i));
        }
        for (long[] result : during) {
            assertEquals(503, result[0], "reject policy while Redis is down");
            assertTrue(result[1] < 500, "answered in " + result[1] + " ms; a dead Redis must not hold a call");
        }
        assertEquals("OPEN", gateway.redisBreaker().state(), "the breaker stopped calling the dead Redis");

        redis.server().restart();
        long back = System.nanoTime();
        long status = Await.until(Duration.ofSeconds(3), () -> call("+3")[0], answer -> answer == 200);
        long recoveredMs = (System.nanoTime() - back) / 1_000_000;
        assertEquals(200, status);
        assertTrue(recoveredMs <= 1000, "decisions from Redis again after " + recoveredMs + " ms");
    }

    @Test
    void localPolicyEnforcesThisInstancesShareInMemory() throws Exception {
        startGateway(RedisDownPolicy.LOCAL, 2, 10);
        redis.server().kill();
        int admitted = 0;
        for (int i = 0; i < 10; i++) {
            long[] result = call("+4" + i);
            assertTrue(result[1] < 1000, "answered in " + result[1] + " ms");
            if (result[0] == 200) {
                admitted++;
            } else {
                assertEquals(503, result[0]);
            }
        }
        assertEquals(5, admitted, "10 per 10 s shared by 2 instances: 5 here");
        assertEquals(admitted, carrier.received("INVITE").size(), "every admitted call reached the carrier");
    }

    @Test
    void allowPolicyAdmitsEveryCallWhileRedisIsDown() throws Exception {
        startGateway(RedisDownPolicy.ALLOW, 1, 1);
        redis.server().kill();
        for (int i = 0; i < 5; i++) {
            assertEquals(200, call("+5" + i)[0], "fail open");
        }
    }
}
