package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient.Answer;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Two gateway instances sharing one redis-server: a block set through one instance's admin API refuses the
 * peer's calls at both, and lifting it through the other frees both. The second instance has no admin token,
 * so it refuses changes with 403.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FleetBlocksTest {

    private static final String GW = "127.0.0.1";
    private static final String TOKEN = "fleet-token";
    private final SipAgents agents = new SipAgents();
    private Gateway first;
    private Gateway second;
    private TestConfigs firstConfig;
    private TestConfigs secondConfig;
    private SipAgent caller;

    @BeforeAll
    void start() throws Exception {
        caller = agents.start("127.0.0.51");
        SipAgent carrier = agents.start("127.0.0.52");
        RedisSettings shared = TestConfigs.sharedRedis("fleet");
        Duration wait = Duration.ofSeconds(5);
        firstConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-1")
                .adminToken(TOKEN), carrier, wait);
        secondConfig = fleetConfig(new TestConfigs(shared, RedisServerProcess.freePort()).instance("gw-2"), carrier,
                wait);
        first = Gateway.start(firstConfig.build());
        second = Gateway.start(secondConfig.build());
    }

    private static TestConfigs fleetConfig(TestConfigs config, SipAgent carrier, Duration wait) {
        return config.peer("acme", "127.0.0.51", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("a", carrier, 1000, wait, wait)
                .route("", "a");
    }

    @AfterAll
    void stop() {
        second.close();
        first.close();
        agents.close();
    }

    private int call(TestConfigs via, String number) throws Exception {
        return caller.invite(GW, via.sipPort(), number).awaitFinal(5000).getStatusCode();
    }

    @Test
    void aBlockThroughOneInstanceHoldsAtEveryInstanceUntilLifted() throws Exception {
        AdminClient one = new AdminClient(first.adminAddress());
        AdminClient two = new AdminClient(second.adminAddress());
        assertEquals(200, call(firstConfig, "+100"));
        assertEquals(200, call(secondConfig, "+101"));

        Answer put = one.send("PUT", "/api/blocks/acme?duration=5m", null, TOKEN);
        assertEquals(200, put.status(), put.body());
        Answer seenByTwo = two.get("/api/blocks/acme");
        assertEquals(200, seenByTwo.status());
        assertTrue(seenByTwo.json().get("blocked").asBoolean(), "the other instance sees the block");
        assertTrue(seenByTwo.json().get("remainingMs").asLong() > 290_000);
        assertEquals(403, call(firstConfig, "+102"));
        assertEquals(403, call(secondConfig, "+103"));

        Answer noToken = two.send("DELETE", "/api/blocks/acme", null, TOKEN);
        assertEquals(403, noToken.status(), "no token configured at the second instance");
        assertTrue(noToken.json().get("error").asText().contains("TRUNKGATE_ADMIN_TOKEN"));
        assertTrue(noToken.json().get("error").asText().contains("admin.token"));
        assertEquals(403, call(secondConfig, "+104"), "the refused DELETE lifted nothing");

        Answer lifted = one.send("DELETE", "/api/blocks/acme", null, TOKEN);
        assertTrue(lifted.json().get("lifted").asBoolean());
        assertFalse(two.get("/api/blocks/acme").json().get("blocked").asBoolean());
        assertEquals(200, call(secondConfig, "+105"));
        assertEquals(200, call(firstConfig, "+106"));
    }
}
