package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RawHttpConnection;
import io.trunkgate.testing.TestConfigs;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The admin server's connection limits, over plain sockets from loopback addresses 127.0.0.x: a connection
 * without a whole request in time is closed, idle or trickling, and connections beyond the caps (in total, per
 * source address) are closed at once while those within them are served. The timeout tests share a gateway
 * with a 300 ms request timeout; each cap test has a gateway of its own, so no connection of another test
 * is still counted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminConnectionLimitsTest {

    private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(300);
    private static final int MAX_CONNECTIONS = 8;
    private static final int MAX_PER_ADDRESS = 4;
    private static final Duration WITHIN = Duration.ofSeconds(5);
    private static final String HEALTH = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
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
        RedisSettings redis = TestConfigs.sharedRedis(instance);
        return Gateway.start(limits.apply(new TestConfigs(redis, RedisServerProcess.freePort()).instance(instance))
                .build());
    }

    private static Gateway capped() throws Exception {
        return gateway("capped", config -> config.adminMaxConnections(MAX_CONNECTIONS, MAX_PER_ADDRESS));
    }

    private static int served(Gateway gateway, String source) throws IOException {
        try (RawHttpConnection connection = RawHttpConnection.open(gateway.adminAddress(), source)) {
            return served(connection);
        }
    }

    private static int served(RawHttpConnection connection) throws IOException {
        connection.send(HEALTH);
        return RawHttpConnection.status(connection.answer(WITHIN));
    }

    private static void assertClosedAtOnce(Gateway gateway, String source) throws IOException {
        try (RawHttpConnection connection = RawHttpConnection.open(gateway.adminAddress(), source)) {
            assertTrue(connection.closedWithin(WITHIN), "a connection from " + source + " beyond the cap stays open");
        }
    }

    private static List<RawHttpConnection> hold(Gateway gateway, String source, int count) throws IOException {
        List<RawHttpConnection> held = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            held.add(RawHttpConnection.open(gateway.adminAddress(), source));
        }
        return held;
    }

    private static void closeAll(List<RawHttpConnection> connections) throws IOException {
        for (RawHttpConnection connection : connections) {
            connection.close();
        }
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd"))) {
            return descriptors.count();
        }
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
            slow.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
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

    @Test
    void connectionsBeyondTheTotalCapAreClosedAtOnceAndHoldNoDescriptors() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "counts descriptors in /proc");
        try (Gateway gateway = capped()) {
            List<RawHttpConnection> held = new ArrayList<>(hold(gateway, "127.0.0.141", MAX_PER_ADDRESS));
            held.addAll(hold(gateway, "127.0.0.142", MAX_CONNECTIONS - MAX_PER_ADDRESS));
            try {
                long descriptors = openDescriptors();
                for (int i = 0; i < 100; i++) {
                    assertClosedAtOnce(gateway, "127.0.0." + (143 + i % 4));
                }
                long grown = openDescriptors() - descriptors;
                assertTrue(grown < 20, "100 refused connections left " + grown + " more descriptors open");

                assertEquals(200, served(held.get(0)), "a connection within the cap is served");
                assertEquals(200, served(gateway, "127.0.0.143"), "the slot it freed is taken again");
            } finally {
                closeAll(held);
            }
        }
    }

    @Test
    void connectionsBeyondTheCapOfOneAddressAreClosedAtOnceWhileOthersGetIn() throws Exception {
        try (Gateway gateway = capped()) {
            List<RawHttpConnection> held = hold(gateway, "127.0.0.151", MAX_PER_ADDRESS);
            try {
                assertClosedAtOnce(gateway, "127.0.0.151");
                assertEquals(200, served(gateway, "127.0.0.152"), "another address gets in");
                assertEquals(200, served(held.get(0)), "a connection within the cap is served");
                assertEquals(200, served(gateway, "127.0.0.151"), "the slot it freed is taken again");
                assertFalse(held.get(1).closedWithin(Duration.ZERO), "the others are still open");
            } finally {
                closeAll(held);
            }
        }
    }
}
