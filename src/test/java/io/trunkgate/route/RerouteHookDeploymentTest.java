package io.trunkgate.route;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.trunkgate.config.RerouteSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.route.internal.HttpRerouteHook;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hooks a user deploys: the example hook module (examples/reroute-hook), compiled and jarred here, loaded from
 * plugins-dir by ServiceLoader and by name; and an HTTP hook on a real HTTP server, with its fallbacks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RerouteHookDeploymentTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 10_000;
    private static final Path EXAMPLE = Path.of("examples/reroute-hook/src/main");
    private static final String EXAMPLE_HOOK = "com.example.trunkgate.BackupFirstHook";

    @TempDir
    Path work;
    private final SipAgents agents = new SipAgents();
    private final List<Gateway> gateways = new ArrayList<>();
    private SipAgent caller;
    private SipAgent failing;
    private SipAgent next;
    private SipAgent backup;
    private HttpServer server;
    private final AtomicReference<String> reply = new AtomicReference<>("{\"carriers\": [\"backup-c\"]}");
    private final Map<String, String> requests = new ConcurrentHashMap<>();
    private volatile CountDownLatch hang = new CountDownLatch(0);
    private volatile CountDownLatch arrived = new CountDownLatch(1);

    @BeforeAll
    void start() throws Exception {
        caller = agents.start("127.0.0.171");
        failing = agents.start("127.0.0.172");
        next = agents.start("127.0.0.173");
        backup = agents.start("127.0.0.174");
        failing.behave(Behaviour.REJECT_503);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.createContext("/reroute", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            requests.put(body.replaceAll(".*\"callId\":\"([^\"]+)\".*", "$1"), body);
            arrived.countDown();
            try {
                hang.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            String answer = reply.get();
            int status = answer.startsWith("HTTP ") ? Integer.parseInt(answer.substring(5)) : 200;
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
    }

    @AfterAll
    void stop() {
        hang.countDown();
        gateways.forEach(Gateway::close);
        server.stop(0);
        agents.close();
    }

    private TestConfigs config(String name) {
        Duration wait = Duration.ofSeconds(5);
        return TestConfigs.onSharedRedis(name, RedisServerProcess.freePort()).instance(name)
                .peer("caller", "127.0.0.171", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("a", failing, 1000, wait, wait)
                .carrier("b", next, 1000, wait, wait)
                .carrier("backup-c", backup, 1000, wait, wait)
                .route("+1", "a", "b", "backup-c");
    }

    private Gateway start(TestConfigs config) throws Exception {
        Gateway gateway = Gateway.start(config.build());
        gateways.add(gateway);
        return gateway;
    }

    /** Sends a call that fails at a; returns the carrier that completed it. */
    private String call(TestConfigs via) throws Exception {
        SipAgent.Call call = caller.invite(GW, via.sipPort(), "+1555");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, failing.received("INVITE", call.callId()));
        if (backup.received("INVITE", call.callId()) == 1) {
            assertEquals(0, next.received("INVITE", call.callId()));
            return "backup-c";
        }
        assertEquals(1, next.received("INVITE", call.callId()));
        return "b";
    }

    @Test
    void theExampleHookDeployedAsAJarInPluginsDirChoosesTheCarrier() throws Exception {
        assertThrows(ClassNotFoundException.class, () -> Class.forName(EXAMPLE_HOOK), "not on the class path");
        Path plugins = Files.createDirectories(work.resolve("plugins"));
        buildExampleJar(plugins.resolve("backup-first-hook.jar"));
        RerouteSettings fromPlugins = new RerouteSettings(Optional.of(plugins), Optional.empty(),
                Duration.ofMillis(50), 1);

        TestConfigs found = config("plugin-found").reroute(fromPlugins);
        start(found);
        assertEquals("backup-c", call(found), "found by ServiceLoader in the jar");

        TestConfigs named = config("plugin-named").reroute(fromPlugins).rerouteHook(EXAMPLE_HOOK);
        start(named);
        assertEquals("backup-c", call(named), "named in routing.reroute-hook");

        TestConfigs none = config("plugin-none");
        start(none);
        assertEquals("b", call(none), "without the plugin, the configured chain");
    }

    @Test
    void theHttpHookChoosesTheCarrierAndFallsBackToTheChainOnTimeoutGarbageAndErrors() throws Exception {
        TestConfigs config = config("http-hook").reroute(new RerouteSettings(Optional.empty(),
                Optional.of(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/reroute")),
                Duration.ofMillis(500), 4));
        Gateway gateway = start(config);

        reply.set("{\"carriers\": [\"backup-c\"]}");
        SipAgent.Call chosen = caller.invite(GW, config.sipPort(), "+1555");
        assertEquals(200, chosen.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(1, backup.received("INVITE", chosen.callId()), "the HTTP hook's choice");
        String sent = requests.get(chosen.callId());
        assertTrue(sent.contains("\"fromCarrier\":\"a\"") && sent.contains("\"reason\":\"FAILURE_RESPONSE\"")
                && sent.contains("\"responseCode\":503") && sent.contains("\"remaining\":[\"b\",\"backup-c\"]"), sent);

        reply.set("this is not json");
        assertEquals("b", call(config), "garbage: the configured chain");
        reply.set("{\"carriers\": \"backup-c\"}");
        assertEquals("b", call(config), "not a list: the configured chain");
        reply.set("HTTP 500");
        assertEquals("b", call(config), "an error status: the configured chain");
        hang = new CountDownLatch(1);
        try {
            reply.set("{\"carriers\": [\"backup-c\"]}");
            assertEquals("b", call(config), "no answer within the timeout: the configured chain");
        } finally {
            hang.countDown();
        }

        String scrape = gateway.metrics().scrape();
        for (Map.Entry<String, Double> expected : Map.of("ok", 1.0, "bad_reply", 2.0, "error", 1.0, "timeout", 1.0)
                .entrySet()) {
            assertEquals(expected.getValue(), Metrics.value(scrape, "trunkgate_reroute_hook_requests_total",
                    Map.of("outcome", expected.getKey())).orElse(0), expected.getKey());
        }
    }

    @Test
    void aHookThatTakesItsTimeHoldsNoSipThread() throws Exception {
        TestConfigs config = config("slow-hook").route("+2", "b")
                .reroute(new RerouteSettings(Optional.empty(),
                        Optional.of(URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/reroute")),
                        Duration.ofSeconds(30), 4));
        start(config);
        reply.set("{\"carriers\": [\"backup-c\"]}");
        hang = new CountDownLatch(1);
        arrived = new CountDownLatch(1);
        try {
            SipAgent.Call rerouted = caller.invite(GW, config.sipPort(), "+1555");
            assertTrue(arrived.await(WAIT_MS, TimeUnit.MILLISECONDS), "a's 503 sent the call to the hook");
            // the hook has not answered: the SIP loops go on with other calls
            SipAgent.Call other = caller.invite(GW, config.sipPort(), "+2555");
            assertEquals(200, other.awaitFinal(WAIT_MS).getStatusCode(), "a call while the hook thinks");
            assertEquals(1, next.received("INVITE", other.callId()));
            assertEquals(0, backup.received("INVITE", rerouted.callId()), "the rerouted call still waits");
            hang.countDown();
            assertEquals(200, rerouted.awaitFinal(WAIT_MS).getStatusCode());
            assertEquals(1, backup.received("INVITE", rerouted.callId()), "the hook's choice, when it came");
        } finally {
            hang.countDown();
        }
    }

    @Test
    void requestsBeyondTheConcurrencyCapUseTheChainAtOnce() throws Exception {
        List<String> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService client = Executors.newSingleThreadExecutor();
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
        HttpRerouteHook hook = new HttpRerouteHook(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/reroute"), Duration.ofSeconds(30),
                1, outcomes::add, client, timers);
        RerouteContext context = new RerouteContext("cap-1", "+1", "a", RerouteReason.FAILURE_RESPONSE, 503,
                List.of("a"), List.of("b", "backup-c"));
        hang = new CountDownLatch(1);
        arrived = new CountDownLatch(1);
        reply.set("{\"carriers\": [\"backup-c\"]}");
        CompletableFuture<List<String>> first = CompletableFuture.supplyAsync(() -> hook.reroute(context));
        assertTrue(arrived.await(WAIT_MS, TimeUnit.MILLISECONDS), "the first request reached the server");
        assertEquals(List.of("b", "backup-c"), hook.reroute(context), "the second is over the cap");
        assertEquals(List.of("busy"), outcomes);
        hang.countDown();
        assertEquals(List.of("backup-c"), first.get(WAIT_MS, TimeUnit.MILLISECONDS));
        assertEquals(List.of("busy", "ok"), outcomes);
        client.shutdownNow();
        timers.shutdownNow();
    }

    @Test
    void aCallGoesOnOnTheGatewaysThreadWhetherTheHookAnswersOrTimesOut() throws Exception {
        ExecutorService client = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-reroute-http"));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "test-timers"));
        // the hook reports each outcome from the step that decides the call's next carriers: note where it ran
        List<String> outcomes = java.util.Collections.synchronizedList(new ArrayList<>());
        Consumer<String> outcome = o -> outcomes.add(o + " on " + Thread.currentThread().getName());
        URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/reroute");
        HttpRerouteHook answered = new HttpRerouteHook(url, Duration.ofMillis(WAIT_MS), 4, outcome, client, timers);
        HttpRerouteHook timingOut = new HttpRerouteHook(url, Duration.ofMillis(300), 4, outcome, client, timers);
        RerouteContext context = new RerouteContext("threads-1", "+1", "a", RerouteReason.FAILURE_RESPONSE, 503,
                List.of("a"), List.of("b", "backup-c"));
        try {
            reply.set("{\"carriers\": [\"backup-c\"]}");
            hang = new CountDownLatch(0);
            assertEquals(List.of("backup-c"), answered.rerouteAsync(context).toCompletableFuture()
                    .get(WAIT_MS, TimeUnit.MILLISECONDS), "the hook's answer");
            hang = new CountDownLatch(1);
            arrived = new CountDownLatch(1);
            CompletableFuture<List<String>> late = timingOut.rerouteAsync(context).toCompletableFuture();
            assertTrue(arrived.await(WAIT_MS, TimeUnit.MILLISECONDS), "the request reached the server");
            assertEquals(List.of("b", "backup-c"), late.get(WAIT_MS, TimeUnit.MILLISECONDS),
                    "the configured chain at the timeout");
            assertEquals(List.of("ok on test-reroute-http", "timeout on test-reroute-http"), outcomes);
        } finally {
            hang.countDown();
            client.shutdownNow();
            timers.shutdownNow();
        }
    }

    /** Compiles examples/reroute-hook against trunkgate's classes and packs it as a plugin jar would be. */
    private void buildExampleJar(Path jar) throws Exception {
        Path classes = Files.createDirectories(work.resolve("example-classes"));
        Path source = EXAMPLE.resolve("java/com/example/trunkgate/BackupFirstHook.java");
        String trunkgate = Path.of(RerouteHook.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "--release", "17", "-cp", trunkgate, "-d", classes.toString(),
                source.toString()), "the example hook compiles");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            Path compiled = classes.resolve("com/example/trunkgate/BackupFirstHook.class");
            out.putNextEntry(new JarEntry("com/example/trunkgate/BackupFirstHook.class"));
            out.write(Files.readAllBytes(compiled));
            out.putNextEntry(new JarEntry("META-INF/services/io.trunkgate.route.RerouteHook"));
            out.write(Files.readAllBytes(EXAMPLE.resolve("resources/META-INF/services/io.trunkgate.route.RerouteHook")));
        }
    }
}
