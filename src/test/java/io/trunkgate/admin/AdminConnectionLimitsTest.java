package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RawHttpConnection;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.net.SocketException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admin server's connection limits, over plain sockets from loopback addresses 127.0.0.x: a connection
 * without a whole request in time is closed, idle or trickling. The tests share a gateway with a 300 ms request
 * timeout.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminConnectionLimitsTest {

    private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(300);
    private static final Duration WITHIN = Duration.ofSeconds(5);
    private Gateway quick;

    @BeforeAll
    void start() throws Exception {
        quick = gateway("quick", config -> config.adminRequestTimeout(REQUEST_TIMEOUT));
    }

    @AfterAll
    void stop() {
        quick.close();
    }

    private static Gateway gateway(String instance, UnaryOperator<TestConfigs> limits) throws Exception {
        RedisSettings base = RedisBackend.settings(RedisMode.STANDALONE,
                List.of(StandaloneRedis.shared().server().address()));
        RedisSettings redis = new RedisSettings(base.mode(), base.addresses(), base.sentinelMaster(), base.password(),
                base.timeout(), "tg-" + instance + "-" + UUID.randomUUID(), 0);
        return Gateway.start(limits.apply(new TestConfigs(redis, RedisServerProcess.freePort()).instance(instance))
                .build());
    }

    @Test
    void anIdleConnectionIsClosedAfterTheRequestTimeout() throws Exception {
        long start = System.nanoTime();
        try (RawHttpConnection idle = RawHttpConnection.open(quick.adminAddress(), "127.0.0.131")) {
            assertTrue(idle.closedWithin(WITHIN), "an idle connection stays open");
        }
        Duration open = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(open.compareTo(REQUEST_TIMEOUT) >= 0, "closed before the timeout: " + open);
        assertEquals(200, new AdminClient(quick.adminAddress()).get("/health").status(), "a prompt request is served");
    }

    @Test
    void aRequestTricklingInIsClosedAtTheTimeoutThoughBytesKeepComing() throws Exception {
        long start = System.nanoTime();
        long deadline = start + WITHIN.toNanos();
        int trickled = 0;
        try (RawHttpConnection slow = RawHttpConnection.open(quick.adminAddress(), "127.0.0.132")) {
            slow.send("GET /health HTTP/1.1\r\nHost: admin\r\nX-Slow: ");
            while (!slow.closedWithin(Duration.ofMillis(50))) {
                assertTrue(System.nanoTime() < deadline, "still open after trickling " + trickled + " bytes");
                try {
                    slow.send("a");
                } catch (SocketException closed) {
                    break;
                }
                trickled++;
            }
        }
        Duration open = Duration.ofNanos(System.nanoTime() - start);
        assertTrue(trickled > 0 && open.compareTo(REQUEST_TIMEOUT) >= 0,
                "closed after " + open + " and " + trickled + " bytes");
    }
}
