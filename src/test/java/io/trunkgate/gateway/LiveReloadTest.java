package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.runtime.ConfigReloader;
import io.trunkgate.testing.AdminClient.Answer;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.StandaloneRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Live reload from real files: gateway.conf, a peer, two carriers and routes.conf in a temporary directory,
 * edited while the gateway runs. Each test starts from the same files with a gateway and agents of its own,
 * without the start-up warm-up (which would take up to its max-time of each test's start).
 */
class LiveReloadTest {

    private static final String GW = "127.0.0.1";
    private static final String TOKEN = "reload-token";

    @TempDir
    Path dir;

    private final SipAgents agents = new SipAgents();
    private LogCapture log;
    private Gateway gateway;
    private AdminClient admin;
    private int sipPort;
    private SipAgent caller;
    private SipAgent slow;
    private SipAgent fast;

    @BeforeEach
    void start() throws Exception {
        caller = agents.start("127.0.0.61");
        slow = agents.start("127.0.0.62");
        fast = agents.start("127.0.0.63");
        sipPort = RedisServerProcess.freePort();
        write("gateway.conf", """
                instance-id = reload-test
                shutdown.drain-timeout = 1s
                sip.warm-up.calls = 0
                sip.listeners = [
                  { transport = udp, host = "127.0.0.1", port = %d }
                  { transport = tcp, host = "127.0.0.1", port = %d }
                ]
                redis { mode = standalone, addresses = ["%s"], timeout = 2s, key-prefix = "tg-reload-%s" }
                admin { host = "127.0.0.1", port = %d, token = "%s" }
                """.formatted(sipPort, sipPort, StandaloneRedis.shared().server().address(), UUID.randomUUID(),
                RedisServerProcess.freePort(), TOKEN));
        writePeer("max = 5");
        write("carriers/slow.conf", "id = slow\nuri = \"" + slow.uri() + "\"\ncps = 1\nmax-wait = 5s\n");
        write("carriers/fast.conf", "id = fast\nuri = \"" + fast.uri() + "\"\ncps = 1000\n");
        write("routes.conf", "routes = [ { prefix = \"+1\", carriers = [slow] }, { prefix = \"+2\", carriers = [fast] } ]\n");
        log = LogCapture.of(ConfigReloader.class);
        gateway = Gateway.start(ConfigLoader.load(dir.resolve("gateway.conf")));
        admin = new AdminClient(gateway.adminAddress());
    }

    @AfterEach
    void stop() {
        log.close();
        gateway.close();
        agents.close();
    }

    private void write(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private void writePeer(String limit) throws Exception {
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\nlimits = [ { window = 10s, " + limit
                + " } ]\n");
    }

    /** The health document once it satisfies {@code condition}, polling for up to 6 s (the files are polled each 1 s). */
    private JsonNode awaitHealth(Predicate<JsonNode> condition) {
        return Await.until(Duration.ofSeconds(6), () -> admin.get("/health").json(), condition);
    }

    private int call(String number) throws Exception {
        return caller.invite(GW, sipPort, number).awaitFinal(6000).getStatusCode();
    }

    @Test
    void aChangedPeerFileIsAppliedWithoutARestart() throws Exception {
        assertEquals(1, gateway.activeConfig().generation());
        writePeer("max = 7");
        JsonNode health = awaitHealth(h -> h.get("config").get("generation").asLong() == 2);
        assertEquals(2, health.get("config").get("generation").asLong(), health.toString());
        assertTrue(health.get("config").get("lastReload").get("applied").asBoolean());
        assertEquals("file change", health.get("config").get("lastReload").get("trigger").asText());
        assertEquals(7, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());
        assertEquals(2.0, Metrics.value(admin.get("/metrics").body(), "trunkgate_config_generation", Map.of())
                .orElse(-1));
    }

    @Test
    void aPeersDirectoryNamedByAnEditedGatewayConfIsWatchedFromThenOn() throws Exception {
        write("peers2/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\n"
                + "limits = [ { window = 10s, max = 9 } ]\n");
        Files.writeString(dir.resolve("gateway.conf"), "peers-dir = peers2\n", StandardOpenOption.APPEND);
        awaitHealth(h -> h.get("config").get("generation").asLong() == 2);
        assertEquals(9, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());

        write("peers2/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\n"
                + "limits = [ { window = 10s, max = 11 } ]\n");
        JsonNode health = awaitHealth(h -> h.get("config").get("generation").asLong() == 3);
        assertEquals(3, health.get("config").get("generation").asLong(), health.toString());
        assertEquals(11, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());
    }

    @Test
    void aCallHeldDuringAReloadKeepsTheConfigItStartedWith() throws Exception {
        assertEquals(200, call("+1000"), "takes slow's free slot");
        SipAgent.Call held = caller.invite(GW, sipPort, "+1001");
        assertEquals(1, Await.until(Duration.ofSeconds(2), () -> gateway.pacer().heldCount("slow"), count -> count > 0), "the second call waits for slow's next slot (1 cps)");

        write("routes.conf", "routes = [ { prefix = \"+1\", carriers = [fast] }, { prefix = \"+2\", carriers = [fast] } ]\n");
        Answer reload = admin.send("POST", "/api/reload", null, TOKEN);
        assertEquals(200, reload.status(), reload.body());
        assertTrue(reload.json().get("applied").asBoolean());
        assertEquals(2, reload.json().get("generation").asLong());

        assertEquals(200, held.awaitFinal(6000).getStatusCode());
        assertEquals(2, slow.received("INVITE").size(), "the held call went where its generation routed it");
        assertEquals(0, fast.received("INVITE").size());
        assertEquals(200, call("+1002"));
        assertEquals(1, fast.received("INVITE").size(), "a new call follows the new routes");
    }

    @Test
    void aBadFileIsRefusedReportedAndTheRunningConfigStays() throws Exception {
        long generation = gateway.activeConfig().generation();
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\nlimits = [ { window = 1x, max = 3 } ]\n");
        JsonNode health = awaitHealth(h -> h.get("status").asText().equals("degraded"));
        assertEquals("degraded", health.get("status").asText(), health.toString());
        assertTrue(health.get("ready").asBoolean(), "a refused reload does not make the gateway unready");
        JsonNode last = health.get("config").get("lastReload");
        assertFalse(last.get("applied").asBoolean());
        assertEquals(generation, health.get("config").get("generation").asLong());
        JsonNode error = last.get("errors").get(0);
        assertTrue(error.get("file").asText().endsWith("acme.conf"), error.toString());
        assertEquals(3, error.get("line").asInt());
        assertEquals("limits[0].window", error.get("key").asText());
        assertTrue(log.events().stream().anyMatch(e -> e.getFormattedMessage().contains("refused")
                && e.getFormattedMessage().contains("acme.conf:3: limits[0].window")), "logged with file, line and key");

        assertEquals(200, call("+2000"), "calls run on the previous configuration");
        assertEquals(5, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());
        Answer reload = admin.send("POST", "/api/reload", null, TOKEN);
        assertEquals(422, reload.status());
        assertEquals("limits[0].window", reload.json().get("errors").get(0).get("key").asText());
        assertEquals(generation, gateway.activeConfig().generation());
        assertTrue(Metrics.value(admin.get("/metrics").body(), "trunkgate_config_reload_refused_total", Map.of())
                .orElse(0) >= 2);

        writePeer("max = 9");
        JsonNode fixed = awaitHealth(h -> h.get("status").asText().equals("ok"));
        assertEquals(generation + 1, fixed.get("config").get("generation").asLong(), fixed.toString());
        assertEquals(9, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());
    }

    @Test
    void aConfigErrorQuotingASecretShowsItOnlyWithTheToken() throws Exception {
        String original = Files.readString(dir.resolve("gateway.conf"));
        String secret = "pw-" + UUID.randomUUID();
        // The token pasted into the wrong key, and a Redis address with a password and a bad port.
        write("gateway.conf", original.replace("admin { host = \"127.0.0.1\", port = ",
                        "admin { host = \"127.0.0.1\", port = \"" + secret + "\", old-port = ")
                .replaceFirst("addresses = \\[\"[^\"]+\"]", "addresses = [\"redis://:" + secret + "@127.0.0.1:99999x\"]"));
        JsonNode health = awaitHealth(h -> h.get("status").asText().equals("degraded"));
        JsonNode errors = health.get("config").get("lastReload").get("errors");
        assertTrue(errors.size() >= 2, health.toString());
        assertTrue(health.toString().contains("admin.port") && health.toString().contains("redis.addresses[0]"),
                "/health names the file, line and key of each error: " + health);
        for (String open : new String[] {"/health", "/", "/api/peers", "/api/carriers", "/api/listeners",
                "/api/history", "/metrics"}) {
            Answer answer = admin.get(open);
            assertFalse(answer.body().contains(secret), open + " needs no token and must not quote the secret: "
                    + answer.body());
        }
        assertEquals(401, admin.get("/api/reload").status(), "the errors in full need the token");
        Answer full = admin.send("GET", "/api/reload", null, TOKEN);
        assertEquals(200, full.status(), full.body());
        assertTrue(full.body().contains(secret), "the authenticated API has each error in full: " + full.body());
        assertTrue(log.events().stream().anyMatch(e -> e.getFormattedMessage().contains(secret)),
                "and so has the log");

        write("gateway.conf", original);
        awaitHealth(h -> h.get("status").asText().equals("ok"));
    }

    @Test
    void aConfigOverItsBoundsIsRefusedAndHealthSaysDegraded() throws Exception {
        long generation = gateway.activeConfig().generation();
        writePeer("max = 5" + " }, { window = 1s, max = 5".repeat(64)); // 65 limits on one line
        JsonNode health = awaitHealth(h -> h.get("status").asText().equals("degraded"));
        assertEquals("degraded", health.get("status").asText(), "a peer over 64 limits is refused: " + health);
        assertEquals("limits", health.get("config").get("lastReload").get("errors").get(0).get("key").asText(),
                health.toString());
        JsonNode error = admin.send("GET", "/api/reload", null, TOKEN).json().get("errors").get(0);
        assertEquals(3, error.get("line").asInt(), error.toString());
        assertEquals("65 limits, over the limit of 64", error.get("message").asText());
        assertEquals(generation, gateway.activeConfig().generation());

        writePeer("max = 5");
        awaitHealth(h -> h.get("status").asText().equals("ok"));
        // A file over 16 MiB is not parsed at all (the reload that parsed 43 MB ran out of memory).
        write("peers/huge.conf", "# padding\n".repeat(1_700_000));
        JsonNode huge = awaitHealth(h -> h.get("status").asText().equals("degraded"));
        assertTrue(huge.get("config").get("lastReload").get("errors").get(0).get("file").asText().endsWith("huge.conf"),
                huge.toString());
        JsonNode tooBig = admin.send("GET", "/api/reload", null, TOKEN).json().get("errors").get(0);
        assertEquals("17000000 bytes, over the limit of 16777216 bytes (16 MiB) per configuration file; not read",
                tooBig.get("message").asText());
        assertEquals(200, call("+2000"), "calls run on the previous configuration");
    }

    @Test
    void aDeeplyNestedFileIsRefusedAndTheWatcherGoesOn() throws Exception {
        long generation = gateway.activeConfig().generation();
        write("peers/acme.conf", "a {".repeat(20_000) + "}".repeat(20_000));
        awaitHealth(h -> h.get("status").asText().equals("degraded"));
        JsonNode error = admin.send("GET", "/api/reload", null, TOKEN).json().get("errors").get(0);
        assertTrue(error.get("message").asText().contains("nested too deeply"), error.toString());
        assertEquals(generation, gateway.activeConfig().generation());

        writePeer("max = 11");
        JsonNode fixed = awaitHealth(h -> h.get("status").asText().equals("ok"));
        assertEquals(generation + 1, fixed.get("config").get("generation").asLong(), "a later valid edit is applied");
        assertEquals(11, admin.get("/api/peers/acme").json().get("limits").get(0).get("max").asLong());
    }

    @Test
    void anEmptyOrTruncatedGatewayConfIsRefusedAndTheTokenKeepsWorking() throws Exception {
        long generation = gateway.activeConfig().generation();
        String original = Files.readString(dir.resolve("gateway.conf"));

        write("gateway.conf", "");
        awaitHealth(h -> h.get("status").asText().equals("degraded"));
        JsonNode empty = admin.send("GET", "/api/reload", null, TOKEN).json();
        assertTrue(empty.get("errors").get(0).get("message").asText().contains("no settings at all"), empty.toString());
        assertEquals(422, admin.send("POST", "/api/reload", null, TOKEN).status(), "the token still authorises");

        // Cut before the admin block: everything it holds is valid, but it would drop the admin token.
        write("gateway.conf", original.substring(0, original.indexOf("admin {")));
        Answer truncated = admin.send("POST", "/api/reload", null, TOKEN);
        assertEquals(422, truncated.status(), truncated.body());
        assertEquals("admin.token", truncated.json().get("errors").get(0).get("key").asText(), truncated.body());
        assertEquals(generation, gateway.activeConfig().generation());

        write("gateway.conf", original);
        assertEquals(200, admin.send("POST", "/api/reload", null, TOKEN).status());
    }

    @Test
    void aPeerMovedIntoAGroupByAReloadKeepsItsWindows() throws Exception {
        long generation = gateway.activeConfig().generation();
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\nlimits = [ { window = 30s, max = 3 } ]\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 1);
        for (int i = 0; i < 3; i++) {
            assertEquals(200, call("+200" + i));
        }
        assertEquals(503, call("+2003"), "the 30 s window is full");

        write("groups/wholesale.conf", "id = wholesale\nlimits = [ { window = 30s, max = 100 } ]\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 2);
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\ngroup = wholesale\n"
                + "limits = [ { window = 30s, max = 3 } ]\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 3);
        JsonNode acme = Await.until(Duration.ofSeconds(6), () -> admin.get("/api/peers/acme").json(),
                peer -> peer.get("limits").get(0).get("used").asLong() == 3);
        assertEquals(3, acme.get("limits").get(0).get("used").asLong(), "the peer's window moved with it: " + acme);
        assertEquals(503, call("+2004"), "joining a group gave the peer no fresh window");
    }

    @Test
    void aPeerMovedIntoAGroupByAReloadKeepsItsCallsInProgressAgainstItsCap() throws Exception {
        long generation = gateway.activeConfig().generation();
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\nmax-concurrent = 2\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 1);
        assertEquals(200, call("+2001"));
        assertEquals(200, call("+2002"));
        assertEquals(503, call("+2003"), "two calls up at a cap of two");

        write("groups/wholesale.conf", "id = wholesale\nlimits = [ { window = 30s, max = 100 } ]\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 2);
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.61\"]\ngroup = wholesale\n"
                + "max-concurrent = 2\n");
        awaitHealth(h -> h.get("config").get("generation").asLong() == generation + 3);
        JsonNode acme = Await.until(Duration.ofSeconds(6), () -> admin.get("/api/peers/acme").json(),
                peer -> peer.get("group").asText().equals("wholesale")
                        && peer.get("concurrent").get(0).get("calls").asLong() == 2);
        assertEquals(2, acme.get("concurrent").get(0).get("calls").asLong(),
                "the calls up moved with the peer: " + acme);
        assertEquals(503, call("+2004"), "joining a group let no call in over the peer's cap");
    }
}
