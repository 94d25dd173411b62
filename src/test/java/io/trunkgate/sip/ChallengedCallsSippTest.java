package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RedisAdmin;
import io.trunkgate.testing.ScriptClock;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.Sipp;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIPp's digest authentication against a carrier that challenges every INVITE (407), through the gateway: SIPp
 * answers each challenge with credentials computed from -au/-ap, as a real trunk does. Under {@code {1s, 5}}, 5 calls
 * at 20 a second all connect and the peer's window counts 5 (before challenged calls were one call, it counted each
 * retry again and refused the third call's). The window runs on a frozen script clock, so all ten INVITEs fall in one
 * instant of it however slowly the machine runs. Skipped where SIPp is not installed (.ci/run installs it).
 */
class ChallengedCallsSippTest {

    private static final String GW = "127.0.0.1";

    @TempDir
    Path dir;

    @Test
    void fiveCallsAtTwentyASecondThroughAChallengingCarrierConnectAndCountFive() throws Exception {
        assumeTrue(Sipp.installed(), "SIPp is not installed");
        try (SipAgent carrier = SipAgent.start("127.0.0.242")) {
            carrier.behave(SipAgent.Behaviour.CHALLENGE_407);
            TestConfigs config = TestConfigs.onSharedRedis("challenged-sipp", RedisServerProcess.freePort())
                    .peer("sipp", "127.0.0.241", Limit.exact(Duration.ofSeconds(1), 5))
                    .carrier("auth", carrier, 1000, Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .route("", "auth");
            try (RedisAdmin redis = new RedisAdmin(StandaloneRedis.shared().server().port())) {
                redis.call("SET", config.build().redis().keyPrefix() + ":{p:sipp}:test-clock",
                        Long.toString(ScriptClock.START_MICROS), "EX", "600");
            }
            try (Gateway gateway = Gateway.start(config.build());
                 Sipp sipp = Sipp.start(dir, "caller", Sipp.resource(dir, "uac-auth.xml"), "u1", "127.0.0.241",
                         SipSockets.freePort(), GW + ":" + config.sipPort(), "-s", "+15550", "-au", "acme",
                         "-ap", "secret", "-m", "5", "-r", "20", "-rp", "1000", "-d", "0")) {
                assertEquals("", sipp.awaitOutcome(), "SIPp: every call connected and ended");
                assertEquals(10, carrier.received(Request.INVITE).size(), "each call reached the carrier twice");
                assertEquals(5, new AdminClient(gateway.adminAddress()).get("/api/peers/sipp").json()
                        .get("limits").get(0).get("used").asLong(), "the window counts each call once");
            }
        }
    }
}
