package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.limit.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a real headless browser (Debian's chromium): its script polls the JSON API and renders
 * a row per peer limit and per carrier. Skipped when chromium is not on PATH; .ci/run installs it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusPageTest {

    private static final String GW = "127.0.0.1";
    private final List<SipAgent> agents = new ArrayList<>();
    private Gateway gateway;
    private String chromium;

    @TempDir
    static Path profile;

    @BeforeAll
    void start() throws Exception {
        chromium = onPath("chromium");
        Assumptions.assumeTrue(chromium != null, "chromium is not on PATH");
        SipAgent caller = SipAgent.start("127.0.0.71");
        SipAgent carrierA = SipAgent.start("127.0.0.72");
        SipAgent carrierB = SipAgent.start("127.0.0.73");
        agents.addAll(List.of(caller, carrierA, carrierB));
        int sipPort = RedisServerProcess.freePort();
        RedisSettings base = RedisBackend.settings(RedisMode.STANDALONE,
                List.of(StandaloneRedis.shared().server().address()));
        RedisSettings redis = new RedisSettings(base.mode(), base.addresses(), base.sentinelMaster(), base.password(),
                base.timeout(), "tg-page-" + UUID.randomUUID(), 0);
        Duration wait = Duration.ofSeconds(5);
        gateway = Gateway.start(new TestConfigs(redis, sipPort).instance("status-page")
                .peer("acme", "127.0.0.71", Limit.exact(Duration.ofSeconds(1), 10), Limit.exact(Duration.ofMinutes(1), 300))
                .peer("globex", "127.0.0.74", Limit.bucketed(Duration.ofDays(1), 100_000, Duration.ofMinutes(1)))
                .carrier("carrier-a", carrierA, 30, wait, wait)
                .carrier("carrier-b", carrierB, 2.5, wait, wait)
                .route("+1", "carrier-a")
                .build());
        for (int i = 0; i < 3; i++) {
            assertEquals(200, caller.invite(GW, sipPort, "+1555000" + i).awaitFinal(5000).getStatusCode());
        }
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        agents.forEach(SipAgent::close);
    }

    private String url() {
        return "http://127.0.0.1:" + gateway.adminAddress().getPort() + "/";
    }

    private List<String> chromiumCommand(String... action) {
        List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--user-data-dir=" + profile.resolve(UUID.randomUUID().toString()),
                "--window-size=1280,800", "--virtual-time-budget=3000"));
        command.addAll(List.of(action));
        command.add(url());
        return command;
    }

    /** Runs chromium to completion (killed after 120 s) and returns what it printed. */
    private static String run(List<String> command, Path log) throws Exception {
        Path out = Files.createTempFile(profile, "chromium", ".out");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(log.toFile()).start();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("chromium did not finish within 120 s: " + Files.readString(log));
        }
        assertEquals(0, process.exitValue(), "chromium failed: " + Files.readString(log));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    @Test
    void theRenderedPageShowsARowPerPeerLimitAndPerCarrierFromTheApi() throws Exception {
        String dom = run(chromiumCommand("--dump-dom"), profile.resolve("dump-dom.log"));
        assertTrue(dom.contains("<tr data-peer=\"acme\">"), dom);
        assertTrue(dom.contains("<tr data-peer=\"globex\">"), dom);
        assertEquals(3, dom.split("<tr data-peer=", -1).length - 1, "acme's two limits and globex's one");
        assertTrue(dom.contains("<td class=\"num\">3 / 300</td>"), "acme's 1 min window holds the three calls: " + dom);
        assertTrue(dom.contains("<tr data-carrier=\"carrier-a\">"), dom);
        assertTrue(dom.contains("<tr data-carrier=\"carrier-b\">"), dom);
        assertTrue(dom.contains("config generation 1"), dom);
    }

    @Test
    void aScreenshotOfTheStatusPage() throws Exception {
        Path png = Path.of("target", "status-page.png").toAbsolutePath();
        Files.deleteIfExists(png);
        run(chromiumCommand("--screenshot=" + png), profile.resolve("screenshot.log"));
        assertTrue(Files.exists(png), "no screenshot written");
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 20_000, "a page with content, not a blank one: " + bytes.length + " bytes");
        assertEquals("PNG", new String(bytes, 1, 3, StandardCharsets.US_ASCII));
        ByteBuffer header = ByteBuffer.wrap(bytes, 16, 8);
        assertEquals(1280, header.getInt());
        assertEquals(800, header.getInt());
    }

    private static String onPath(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File file = new File(dir, name);
            if (file.canExecute()) {
                return file.getAbsolutePath();
            }
        }
        return null;
    }
}
