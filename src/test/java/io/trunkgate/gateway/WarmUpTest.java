package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A starting gateway places its warm-up calls through its own UDP listener before it takes traffic: every one is
 * admitted, paced and completed end to end, none reaches a configured carrier or the call records, and the real
 * configuration is in force once start() returns.
 */
class WarmUpTest {

    private static final long WAIT_MS = 10_000;
    private static final int CALLS = 300;

    @Test
    void warmUpCallsRunThroughTheListenerAndLeaveNoTrace(@TempDir Path dir) throws Exception {
        Path records = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.141");
        SipAgent carrier = SipAgent.start("127.0.0.142");
        int port = RedisServerProcess.freePort();
        try (LogCapture logs = LogCapture.start();
             Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("warm-up", port)
                     .instance("warm-gw")
                     .warmUp(new WarmUpSettings(CALLS, Duration.ofSeconds(60), false))
                     .callRecords(records)
                     .peer("caller", "127.0.0.141", Limit.exact(Duration.ofSeconds(1), 100))
                     .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                     .route("", "carrier")
                     .build())) {
            assertEquals(CALLS, warmUpCallsCompleted(logs), "warm-up calls completed end to end");

            String metrics = new AdminClient(gateway.adminAddress()).get("/metrics").body();
            // the configured peer's series is there from the start, at 0: no warm-up call counted
            assertTrue(!metrics.contains("warm-up") && metrics.lines()
                    .filter(line -> line.startsWith("trunkgate_calls_admitted_total{"))
                    .allMatch(line -> line.endsWith(" 0.0")) && metrics.contains("peer=\"caller\""),
                    "warm-up calls in the metrics:\n" + metrics);
            assertEquals(0, carrier.received(Request.INVITE).size(), "warm-up calls reached a configured carrier");
            assertEquals(List.of(), logs.events().stream().filter(e -> e.getLoggerName().equals("trunkgate.calls"))
                    .map(ILoggingEvent::getFormattedMessage).filter(line -> line.contains("peer=~warm-up-")).toList(),
                    "call log lines of warm-up calls");

            SipAgent.Call call = caller.invite("127.0.0.1", port, "+4450");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "a call of a configured peer after start");
            call.ack();
            assertEquals(200, call.bye(WAIT_MS).getStatusCode());
        } finally {
            caller.close();
            carrier.close();
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(1, lines.size(), "call records: " + lines);
        assertEquals("caller", new ObjectMapper().readTree(lines.get(0)).get("peer").asText());
    }

    /**
     * A warm-up as the default runs it (its calls, then more while the compiler is busy, up to its max-time)
     * leaves nothing behind: ten real calls count ten and write ten records, and the warm-up sent Redis no key of
     * a configured peer or carrier, even of one whose id is the warm-up's own with the '~' left out.
     */
    @Test
    void afterAWarmUpTenCallsCountTenAndItWroteNoKeyOfAConfiguredPeerOrCarrier(@TempDir Path dir)
            throws Exception {
        Path records = dir.resolve("calls.jsonl");
        Path monitored = dir.resolve("monitor.txt");
        String id = "warm-up-wu";
        SipAgent caller = SipAgent.start("127.0.0.145");
        SipAgent carrier = SipAgent.start("127.0.0.146");
        int port = RedisServerProcess.freePort();
        RedisSettings redis = TestConfigs.sharedRedis("warm-up-default");
        int redisPort = StandaloneRedis.shared().server().port();
        // every command Redis gets while the gateway starts, the warm-up's included
        Process monitor = new ProcessBuilder("redis-cli", "-p", Integer.toString(redisPort), "MONITOR")
                .redirectOutput(monitored.toFile()).redirectErrorStream(true).start();
        try (LogCapture logs = LogCapture.of("trunkgate.calls");
             Gateway gateway = Gateway.start(new TestConfigs(redis, port)
                     .instance("wu")
                     .warmUp(new WarmUpSettings(CALLS, Duration.ofSeconds(5), true))
                     .callRecords(records)
                     .peer(id, "127.0.0.145", Limit.exact(Duration.ofMinutes(1), 100))
                     .carrier(id, carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                     .route("", id)
                     .build())) {
            String marker = redis.keyPrefix() + ":started";
            new ProcessBuilder("redis-cli", "-p", Integer.toString(redisPort), "ECHO", marker).start().waitFor();
            Await.until(Duration.ofSeconds(30), () -> Files.readString(monitored), text -> text.contains(marker));
            monitor.destroy();
            // the gateway's own health checks read the configured carrier's health key: reads are not the warm-up's
            Set<String> reads = Set.of("GET", "MGET", "EXISTS", "TTL", "PTTL", "TYPE", "SCAN");
            List<String> theirs = Files.readAllLines(monitored).stream()
                    .filter(line -> line.contains(redis.keyPrefix()))
                    .filter(line -> !reads.contains(command(line)))
                    .filter(line -> Pattern.compile("(?<!~)" + id).matcher(line).find()).toList();
            assertEquals(List.of(), theirs.subList(0, Math.min(5, theirs.size())),
                    "Redis writes naming the configured peer or carrier while the gateway started");
            assertTrue(Files.readAllLines(monitored).stream().anyMatch(line -> line.contains("~" + id)),
                    "the warm-up's own keys");

            for (int i = 0; i < 10; i++) {
                SipAgent.Call call = caller.invite("127.0.0.1", port, "+44700" + i);
                assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
                call.ack();
                assertEquals(200, call.bye(WAIT_MS).getStatusCode());
            }
            String metrics = gateway.metrics().scrape();
            assertEquals(10.0, sum(metrics, "trunkgate_calls_admitted_total"), metrics);
            assertEquals(10.0, sum(metrics, "trunkgate_sip_requests_total{gateway=\"wu\",method=\"INVITE\"}"), metrics);
            assertEquals(10.0, sum(metrics, "trunkgate_pacing_delay_seconds_count"), metrics);
            assertTrue(!metrics.contains("~warm-up"), metrics);
            assertEquals(10, logs.events().size(), "call log lines");
        } finally {
            monitor.destroy();
            caller.close();
            carrier.close();
        }
        List<String> lines = Files.readAllLines(records);
        assertEquals(10, lines.size(), "call records: " + lines);
        for (String line : lines) {
            assertEquals(id, new ObjectMapper().readTree(line).get("peer").asText(), line);
        }
    }

    /** The command of a line of MONITOR's output: {@code 1795752751.813548 [0 127.0.0.1:35750] "GET" "key"}. */
    private static String command(String monitorLine) {
        int open = monitorLine.indexOf("] \"");
        return open < 0 ? "" : monitorLine.substring(open + 3, monitorLine.indexOf('"', open + 3)).toUpperCase();
    }

    /** The sum of every sample of {@code name} (a metric name, or a name with its labels up to the value). */
    private static double sum(String exposition, String name) {
        return exposition.lines().filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1))).sum();
    }

    @Test
    void pastItsCallsTheWarmUpGoesOnWhileTheCompilerIsBusyWithinItsMaxTime() throws Exception {
        int port = RedisServerProcess.freePort();
        long started = System.nanoTime();
        try (LogCapture logs = LogCapture.start();
             Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("warm-up-compiled", port)
                     .instance("warm-compiled")
                     .warmUp(new WarmUpSettings(CALLS, Duration.ofSeconds(5), true))
                     .build())) {
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            String log = String.join("\n", logs.reactions().stream().map(ILoggingEvent::getFormattedMessage).toList());
            Matcher done = Pattern.compile("warm-up: (\\d+) of (\\d+) calls completed .*; " + CALLS
                    + " configured, then more, 2 at a time, while the JIT compiler was busy").matcher(log);
            assertTrue(done.find(), "the warm-up's log line:\n" + log);
            assertTrue(Integer.parseInt(done.group(2)) >= CALLS, "at least the configured calls: " + done.group());
            assertTrue(Integer.parseInt(done.group(1)) >= CALLS, "completed: " + done.group());
            // max-time bounds the warm-up; the rest of the start (Redis, stack, admin server) comes on top
            assertTrue(tookMs < 5_000 + 30_000, "started in " + tookMs + " ms");
        }
    }

    @Test
    void aWarmUpCutByItsMaxTimeLeavesNoCallInProgress() throws Exception {
        int port = RedisServerProcess.freePort();
        // far more calls than fit in max-time: calls are in flight, 32 at a time, when it ends
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("warm-up-cut", port).instance("warm-cut")
                .warmUp(new WarmUpSettings(1_000_000, Duration.ofSeconds(2), false))
                .build())) {
            // a drain (SIGTERM) would otherwise wait for warm-up dialogs whose carrier is gone
            assertEquals(0, gateway.callsInProgress(), "calls in progress once started");
        }
    }

    @Test
    void everyInviteOfAPeerWhileTheGatewayWarmsUpHears503AsItArrives() throws Exception {
        SipAgent caller = SipAgent.start("127.0.0.143");
        SipAgent carrier = SipAgent.start("127.0.0.144");
        int port = RedisServerProcess.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("warm-up-busy", port).instance("warm-busy")
                // far more calls than fit in max-time: the warm-up lasts its max-time
                .warmUp(new WarmUpSettings(1_000_000, Duration.ofSeconds(10), false))
                .peer("caller", "127.0.0.143", Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier");
        CompletableFuture<Gateway> started = startInTheBackground(config);
        try {
            // sent again by the caller's stack until the listener is open
            assertEquals(503, caller.invite("127.0.0.1", port, "+4460").awaitFinal(WAIT_MS).getStatusCode());
            List<SipAgent.Call> calls = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                calls.add(caller.invite("127.0.0.1", port, "+4461" + i));
            }
            for (SipAgent.Call call : calls) {
                Response answer = call.awaitFinal(WAIT_MS);
                assertGatewayStarting(answer, "a call while it warms up");
                assertEquals(1, ((RetryAfterHeader) answer.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
            }
            try (Gateway gateway = started.get(60, TimeUnit.SECONDS)) {
                // 5 a second, as for unknown sources, would have left most to the callers' retransmissions
                double shed = Metrics.value(gateway.metrics().scrape(), "trunkgate_calls_shed_total",
                        Map.of("peer", "caller", "reason", "starting")).orElse(0);
                assertTrue(shed >= 21, "each INVITE answered before parsing, as it arrived: " + shed);
                assertEquals(0, carrier.received(Request.INVITE).size());
            }
        } finally {
            started.thenAccept(Gateway::close);
            caller.close();
            carrier.close();
        }
    }

    @Test
    void aPeerClaimingAllOfLoopbackNeitherStopsTheWarmUpNorGetsACallInMeanwhile() throws Exception {
        // the warm-up's own address, on another port: the address alone lets nobody in
        SipAgent intruder = SipAgent.start("127.255.255.254");
        SipAgent carrier = SipAgent.start("127.0.0.145");
        int port = RedisServerProcess.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("warm-up-claimed", port).instance("warm-claimed")
                .warmUp(new WarmUpSettings(1_000_000, Duration.ofSeconds(10), false))
                .peer("lab", "127.0.0.0/8", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier");
        try (LogCapture logs = LogCapture.start()) {
            CompletableFuture<Gateway> started = startInTheBackground(config);
            try {
                Response early = intruder.invite("127.0.0.1", port, "+4470").awaitFinal(WAIT_MS);
                assertGatewayStarting(early, "a call from the warm-up's address while it runs");
                try (Gateway gateway = started.get(60, TimeUnit.SECONDS)) {
                    int completed = warmUpCallsCompleted(logs);
                    assertTrue(completed >= 100, "warm-up calls completed: " + completed);
                    assertEquals(0, carrier.received(Request.INVITE).size(), "calls at the carrier during the warm-up");
                    SipAgent.Call call = intruder.invite("127.0.0.1", port, "+4471");
                    assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode(), "the same caller once started");
                    call.ack();
                    assertEquals(200, call.bye(WAIT_MS).getStatusCode());
                }
            } finally {
                started.thenAccept(Gateway::close);
            }
        } finally {
            intruder.close();
            carrier.close();
        }
    }

    @Test
    void optionsHear503UntilTheWarmUpIsOverFromTheListenersFirstDatagram() throws Exception {
        int port = RedisServerProcess.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("warm-up-probed", port).instance("warm-probed")
                .warmUp(new WarmUpSettings(CALLS, Duration.ofSeconds(60), false));
        List<String> early = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean started = new AtomicBoolean();
        try (DatagramSocket probe = new DatagramSocket(0,
                InetAddress.getByName("127.0.0.1"))) {
            // a load balancer probing from before the start: its OPTIONS queue up before the proxy is registered
            Thread prober = new Thread(() -> {
                byte[] buffer = new byte[65535];
                for (int n = 0; !started.get(); n++) {
                    try {
                        byte[] options = ("OPTIONS sip:127.0.0.1:" + port + " SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                                + probe.getLocalPort() + ";branch=z9hG4bKwarm" + n + "\r\nFrom: <sip:lb@127.0.0.1>;tag="
                                + n + "\r\nTo: <sip:127.0.0.1>\r\nCall-ID: warm-" + n + "\r\nCSeq: 1 OPTIONS\r\n"
                                + "Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
                        probe.send(new DatagramPacket(options, options.length,
                                new InetSocketAddress("127.0.0.1", port)));
                        probe.setSoTimeout(2);
                        DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
                        probe.receive(reply);
                        if (!started.get()) {
                            early.add(new String(buffer, 0, reply.getLength(), StandardCharsets.UTF_8).lines()
                                    .findFirst().orElse(""));
                        }
                    } catch (SocketTimeoutException e) {
                        // no answer yet: send the next
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            prober.start();
            try (Gateway gateway = Gateway.start(config.build())) {
                started.set(true);
                prober.join(WAIT_MS);
                // 503 while warming up, then 200 from the moment it is ready (just before start() returns)
                List<String> answers = List.copyOf(early);
                assertTrue(!answers.isEmpty() && answers.get(0).startsWith("SIP/2.0 503"), "first answers: " + answers);
                int ready = answers.indexOf("SIP/2.0 200 OK");
                assertTrue(ready < 0 || answers.subList(ready, answers.size()).stream()
                        .allMatch(line -> line.startsWith("SIP/2.0 200")), "answers: " + answers);
            } finally {
                started.set(true);
            }
        }
    }

    @Test
    void aWarmUpOnlyRunLetsNoCallInAndStopsWhenItsWarmUpIsOver() throws Exception {
        SipAgent caller = SipAgent.start("127.0.0.147");
        SipAgent carrier = SipAgent.start("127.0.0.148");
        int port = RedisServerProcess.freePort();
        TestConfigs config = TestConfigs.onSharedRedis("warm-up-only", port).instance("warm-only")
                .warmUp(new WarmUpSettings(1_000_000, Duration.ofSeconds(10), false))
                .peer("caller", "127.0.0.147", Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier");
        try (LogCapture logs = LogCapture.start()) {
            CompletableFuture<Void> run = CompletableFuture.runAsync(() -> {
                try {
                    Gateway.warmUpAndStop(config.build());
                } catch (Exception e) {
                    throw new CompletionException(e);
                }
            });
            // sent again by the caller's stack until the listener is open
            Response answer = caller.invite("127.0.0.1", port, "+4480").awaitFinal(WAIT_MS);
            assertGatewayStarting(answer, "a call while it warms up only");
            run.get(60, TimeUnit.SECONDS);

            assertTrue(warmUpCallsCompleted(logs) >= 100, "the warm-up ran");
            assertEquals(0, carrier.received(Request.INVITE).size(), "calls at the configured carrier");
            assertTrue(logs.reactions().stream().map(ILoggingEvent::getFormattedMessage)
                    .noneMatch(line -> line.startsWith("admin HTTP on")), "the admin server opened");
            // stopped: its SIP port is free again
            new DatagramSocket(new InetSocketAddress("127.0.0.1", port)).close();
        } finally {
            caller.close();
            carrier.close();
        }
    }

    /** {@code answer} is the 503 "gateway starting" of a gateway that is warming up. */
    private static void assertGatewayStarting(Response answer, String what) {
        assertEquals(503, answer.getStatusCode(), what);
        assertTrue(answer.getHeader(ReasonHeader.NAME).toString().contains("gateway starting"), answer.toString());
    }

    /** A gateway starting on another thread, so that the test can call it while it warms up. */
    private static CompletableFuture<Gateway> startInTheBackground(TestConfigs config) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return Gateway.start(config.build());
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        });
    }

    /** The calls the warm-up's log line says completed end to end. */
    private static int warmUpCallsCompleted(LogCapture logs) {
        Matcher done = Pattern.compile("warm-up: (\\d+) of (\\d+) calls completed").matcher(String.join("\n",
                logs.reactions().stream().map(ILoggingEvent::getFormattedMessage).toList()));
        assertTrue(done.find(), "the warm-up's log line");
        return Integer.parseInt(done.group(1));
    }
}
