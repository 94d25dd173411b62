package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RedisAdmin;
import io.trunkgate.testing.ScriptClock;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipSockets;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.io.File;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    private static boolean sippInstalled() {
        String path = System.getenv("PATH");
        return path != null && List.of(path.split(File.pathSeparator)).stream()
                .anyMatch(p -> Files.isExecutable(Path.of(p, "sipp")));
    }

    @Test
    void fiveCallsAtTwentyASecondThroughAChallengingCarrierConnectAndCountFive() throws Exception {
        assumeTrue(sippInstalled(), "SIPp is not installed");
        Path scenario = dir.resolve("uac-auth.xml");
        try (InputStream in = getClass().getResourceAsStream("/sipp/uac-auth.xml")) {
            Files.copy(in, scenario);
        }
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
            Gateway gateway = Gateway.start(config.build());
            try {
                Process sipp = new ProcessBuilder("sipp", "-sf", scenario.toString(), "-i", "127.0.0.241",
                        "-p", Integer.toString(SipSockets.freePort()), GW + ":" + config.sipPort(),
                        "-s", "+15550", "-au", "acme", "-ap", "secret", "-m", "5", "-r", "20", "-rp", "1000",
                        "-d", "0", "-nostdin", "-timeout", "60s", "-timeout_error", "-trace_err")
                        .directory(dir.toFile()).redirectErrorStream(true)
                        .redirectOutput(dir.resolve("sipp.out").toFile()).start();
                assertTrue(sipp.waitFor(90, TimeUnit.SECONDS), "SIPp did not finish");
                String errors = Files.list(dir).filter(f -> f.getFileName().toString().endsWith("_errors.log"))
                        .findFirst().map(f -> {
                            try {
                                return Files.readString(f);
                            } catch (Exception e) {
                                return e.toString();
                            }
                        }).orElse("");
                assertEquals(0, sipp.exitValue(), "SIPp: every call connected and ended; errors: " + errors);
                assertEquals(10, carrier.received(Request.INVITE).size(), "each call reached the carrier twice");
                assertEquals(5, new AdminClient(gateway.adminAddress()).get("/api/peers/sipp").json()
                        .get("limits").get(0).get("used").asLong(), "the window counts each call once");
            } finally {
                gateway.close();
            }
        }
    }
}
