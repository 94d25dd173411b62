package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.DigestAlgorithm;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.Sipp;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sip.header.ProxyAuthorizationHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIPp as a PBX known to the gateway by its digest credentials alone (no peer lists its address): it answers the
 * gateway's 407 with MD5 credentials computed from -au/-ap, as a real PBX does. Each call is challenged, then
 * admitted once, and reaches the carrier without the credentials; a wrong password is challenged again and counted.
 * SIPp before 3.7.3 (Debian's 3.6.1) answers MD5 only, so the peer offers MD5 alone. Skipped where SIPp is not
 * installed (.ci/run installs it).
 */
class DigestPeersSippTest {

    private static final String GW = "127.0.0.1";
    private static final String SIPP = "127.0.5.1";
    private static final PeerCredentials PBX = PeerCredentials.withPassword("pbx-17", "trunkgate.test", "s3cret",
            List.of(DigestAlgorithm.MD5));

    @TempDir
    Path dir;

    @Test
    void sippAnswersTheChallengeAndEachCallIsAdmittedOnceWithoutItsCredentials() throws Exception {
        assumeTrue(Sipp.installed(), "SIPp is not installed");
        try (SipAgent carrier = SipAgent.start("127.0.5.2")) {
            TestConfigs config = config(carrier);
            try (Gateway gateway = Gateway.start(config.build())) {
                String errors = sipp("uac-auth.xml", config.sipPort(), "s3cret", 5);
                assertEquals("", errors, "SIPp: every call challenged, then connected and ended");

                assertEquals(5, carrier.received(Request.INVITE).size(), "each call reached the carrier once");
                for (SipAgent.Received invite : carrier.received(Request.INVITE)) {
                    assertNull(invite.request().getHeader(ProxyAuthorizationHeader.NAME),
                            "the gateway's credentials are consumed, not sent on");
                }
                AdminClient admin = new AdminClient(gateway.adminAddress());
                assertEquals(5, admin.get("/api/peers/pbx").json().get("limits").get(0).get("used").asLong(),
                        "the window counts each call once: its challenge counted nothing");
                String metrics = admin.get("/metrics").body();
                assertEquals(5.0, Metrics.value(metrics, "trunkgate_calls_admitted_total", Map.of("peer", "pbx"))
                        .orElse(-1));
                assertTrue(Metrics.value(metrics, "trunkgate_auth_challenges_total",
                        Map.of("reason", "no_credentials")).orElse(-1) >= 5, metrics);
                assertEquals(0.0, Metrics.value(metrics, "trunkgate_auth_failures_total",
                        Map.of("peer", "pbx", "reason", "wrong_password")).orElse(-1));
            }
        }
    }

    @Test
    void aWrongPasswordIsChallengedAgainCountedAndNeverReachesTheCarrier() throws Exception {
        assumeTrue(Sipp.installed(), "SIPp is not installed");
        try (SipAgent carrier = SipAgent.start("127.0.5.2")) {
            TestConfigs config = config(carrier);
            try (Gateway gateway = Gateway.start(config.build())) {
                String errors = sipp("uac-auth-refused.xml", config.sipPort(), "guessed", 3);
                assertEquals("", errors, "SIPp: each call challenged twice");

                assertEquals(0, carrier.received(Request.INVITE).size());
                String metrics = new AdminClient(gateway.adminAddress()).get("/metrics").body();
                assertTrue(Metrics.value(metrics, "trunkgate_auth_failures_total",
                        Map.of("peer", "pbx", "reason", "wrong_password")).orElse(-1) >= 3, metrics);
                assertEquals(0.0, Metrics.value(metrics, "trunkgate_calls_admitted_total", Map.of("peer", "pbx"))
                        .orElse(-1));
            }
        }
    }

    private static TestConfigs config(SipAgent carrier) {
        return TestConfigs.onSharedRedis("digest-sipp", RedisServerProcess.freePort())
                .peerByCredentials("pbx", PBX, Limit.exact(Duration.ofHours(1), 1000))
                .carrier("c", carrier, 1000, Duration.ofSeconds(5), Duration.ofSeconds(5))
                .route("", "c");
    }

    /**
     * Runs SIPp's {@code scenario}: {@code calls} calls, two a second (each call's two stateless answers stay within
     * the 5 a second a source that no peer lists gets); returns its errors, "" if none.
     */
    private String sipp(String scenario, int gatewayPort, String password, int calls) throws Exception {
        try (Sipp sipp = Sipp.start(dir, "pbx", Sipp.resource(dir, scenario), "u1", SIPP, SipSockets.freePort(),
                GW + ":" + gatewayPort, "-s", "+15550", "-au", PBX.user(), "-ap", password,
                "-m", Integer.toString(calls), "-r", "2", "-d", "0")) {
            return sipp.awaitOutcome();
        }
    }
}
