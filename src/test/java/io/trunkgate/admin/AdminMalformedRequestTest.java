package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RawHttpConnection;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Requests the HTTP decoder cannot read, sent over a plain socket to a running gateway's admin server: each is
 * answered 400 and none is executed, even with a valid token and a path and method that change something.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminMalformedRequestTest {

    private static final String TOKEN = "malformed-token";
    private static final String CLIENT = "127.0.0.121";
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);
    private Gateway gateway;
    private AdminClient admin;

    @BeforeAll
    void start() throws Exception {
        RedisSettings redis = TestConfigs.sharedRedis("malformed");
        gateway = Gateway.start(new TestConfigs(redis, RedisServerProcess.freePort()).instance("malformed-test")
                .adminToken(TOKEN)
                .peer("acme", "127.0.0.122", Limit.exact(Duration.ofSeconds(1), 100))
                .build());
        admin = new AdminClient(gateway.adminAddress());
    }

    @AfterAll
    void stop() {
        gateway.close();
    }

    private String exchange(String request) throws Exception {
        try (RawHttpConnection connection = RawHttpConnection.open(gateway.adminAddress(), CLIENT)) {
            connection.send(request);
            return connection.answer(ANSWER_WITHIN);
        }
    }

    private boolean blocked() throws Exception {
        return admin.get("/api/blocks/acme").json().get("blocked").asBoolean();
    }

    @Test
    void aWellFormedRawRequestIsServed() throws Exception {
        String answer = exchange("GET /api/blocks/acme HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertEquals(200, RawHttpConnection.status(answer), answer);
    }

    @Test
    void aPutWithABrokenHeaderGets400AndBlocksNothing() throws Exception {
        for (String broken : List.of("broken header line", "X-No-Colon", "Bad Name: value",
                "Content-Length: 1\r\nContent-Length: 2")) {
            String answer = exchange("PUT /api/blocks/acme?duration=10m HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + TOKEN + "\r\n" + broken + "\r\n\r\n");
            assertEquals(400, RawHttpConnection.status(answer), broken + ": " + answer);
            assertTrue(answer.contains("\"error\""), answer);
            assertFalse(blocked(), broken + ": the request was executed");
        }
    }

    @Test
    void aDeleteWithABrokenHeaderGets400AndLiftsNothing() throws Exception {
        assertEquals(200, admin.send("PUT", "/api/blocks/acme?duration=10m", null, TOKEN).status());
        try {
            String answer = exchange("DELETE /api/blocks/acme HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + TOKEN + "\r\nbroken header line\r\n\r\n");
            assertEquals(400, RawHttpConnection.status(answer), answer);
            assertTrue(blocked(), "the block was lifted");
        } finally {
            admin.send("DELETE", "/api/blocks/acme", null, TOKEN);
        }
    }

    @Test
    void anInvalidRequestLineGets400() throws Exception {
        for (String requestLine : List.of("GET /api/blocks/acme HTTP/1.1 extra", "GARBAGE",
                "PUT /api/blocks/acme?duration=10m HTTP/9")) {
            String answer = exchange(requestLine + "\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + TOKEN + "\r\n\r\n");
            assertEquals(400, RawHttpConnection.status(answer), requestLine + ": " + answer);
        }
        assertFalse(blocked());
    }

    @Test
    void headersOverTheLimitGet400AndAreNotExecuted() throws Exception {
        String answer = exchange("PUT /api/blocks/acme?duration=10m HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nX-Padding: " + "a".repeat(10_000) + "\r\n\r\n");
        assertEquals(400, RawHttpConnection.status(answer), answer);
        assertFalse(blocked());
    }

    @Test
    void aBodyOverTheLimitGets413AndIsNotExecuted() throws Exception {
        try (RawHttpConnection connection = RawHttpConnection.open(gateway.adminAddress(), CLIENT)) {
            connection.send("PUT /api/blocks/acme HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    + "Authorization: Bearer " + TOKEN + "\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 70000\r\n\r\n{\"duration\": \"10m\", \"padding\": \"");
            String answer = connection.answer(ANSWER_WITHIN);
            assertEquals(413, RawHttpConnection.status(answer), answer);
        }
        assertFalse(blocked());
    }

    @Test
    void aRequestAddressedByAnotherNameGets421SoADnsRebindingPageReadsNothing() throws Exception {
        int port = gateway.adminAddress().getPort();
        for (String host : List.of("attacker.example:" + port, "attacker.example", "127.0.0.1.nip.io:" + port,
                "192.0.2.7:" + port)) {
            String answer = exchange("GET /api/peers HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
            assertEquals(421, RawHttpConnection.status(answer), host + ": " + answer);
            assertFalse(answer.contains("acme"), "nothing of the API: " + answer);
        }
        for (String host : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "[::1]:" + port,
                "127.0.0.1")) {
            String answer = exchange("GET /api/peers HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
            assertEquals(200, RawHttpConnection.status(answer), host + ": " + answer);
        }
        String noHost = exchange("GET /api/peers HTTP/1.1\r\n\r\n");
        assertEquals(400, RawHttpConnection.status(noHost), noHost);
        String twoHosts = exchange("GET /api/peers HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\n\r\n");
        assertEquals(400, RawHttpConnection.status(twoHosts), twoHosts);
        String rebound = exchange("PUT /api/blocks/acme?duration=10m HTTP/1.1\r\nHost: attacker.example\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\n\r\n");
        assertEquals(421, RawHttpConnection.status(rebound), rebound);
        assertFalse(blocked());
    }

    @Test
    void aDuplicatedAuthorizationHeaderGets400AndIsNotExecuted() throws Exception {
        for (String second : List.of("Bearer wrong", "Bearer " + TOKEN)) {
            String answer = exchange("PUT /api/blocks/acme?duration=10m HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + TOKEN + "\r\nAuthorization: " + second + "\r\n\r\n");
            assertEquals(400, RawHttpConnection.status(answer), second + ": " + answer);
            assertTrue(answer.contains("more than one Authorization header"), answer);
            assertFalse(blocked(), "the request was executed");
        }
    }
}
