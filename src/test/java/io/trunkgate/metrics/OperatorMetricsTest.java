package io.trunkgate.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.BuildInfo;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * What an operator expects of /metrics on a gateway that has carried no call yet: the JVM's and the process's
 * series, the build, and every counter at 0 for the configured peers and carriers; then INVITEs from an address no
 * peer matches are each counted (whatever the answers' budget lets through), and the ACKs of their 403s are not
 * taken for requests in unknown dialogs. docs/metrics.md names every metric served, and every one the alert rules
 * of ops/prometheus use.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OperatorMetricsTest {

    private static final String GW = "127.0.0.1";
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private TestConfigs config;
    private SipAgent stranger;
    private String atStart;

    @BeforeAll
    void start() throws Exception {
        SipAgent carrier = agents.start("127.0.0.212");
        stranger = agents.start("127.0.0.213");
        Duration wait = Duration.ofSeconds(5);
        config = TestConfigs.onSharedRedis("operator-metrics", RedisServerProcess.freePort())
                .peer("acme", "127.0.0.211", Limit.exact(Duration.ofSeconds(1), 10))
                .carrier("a", carrier, 100, wait, wait)
                .route("", "a");
        gateway = Gateway.start(config.build());
        atStart = new AdminClient(gateway.adminAddress()).get("/metrics").body();
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    private double value(String exposition, String name, Map<String, String> labels) {
        return Metrics.value(exposition, name, labels).orElseThrow(() -> new AssertionError(
                "no " + name + labels + " in\n" + exposition));
    }

    @Test
    void theJvmTheProcessAndTheBuildAreThereFromTheStart() {
        for (String name : List.of("jvm_memory_used_bytes", "jvm_gc_memory_allocated_bytes_total",
                "jvm_threads_live_threads", "jvm_classes_loaded_classes", "process_cpu_usage", "system_cpu_count",
                "process_uptime_seconds", "process_start_time_seconds", "process_files_open_files")) {
            assertTrue(Metrics.value(atStart, name, Map.of()).isPresent(), name + " missing");
        }
        // CPU time in seconds, as Prometheus names it; no nanosecond counter beside it
        double cpuSeconds = value(atStart, "process_cpu_seconds_total", Map.of());
        assertTrue(cpuSeconds > 0 && cpuSeconds < 100_000, "seconds, not ns: " + cpuSeconds);
        assertTrue(atStart.contains("# TYPE process_cpu_seconds_total counter"), atStart);
        assertFalse(atStart.contains("process_cpu_time"), "no process_cpu_time_ns_total");
        BuildInfo build = BuildInfo.current();
        assertNotEquals("unknown", build.version(), "Maven filled in the version");
        assertEquals(1.0, value(atStart, "trunkgate_build_info", Map.of("version", build.version(),
                "commit", build.commit(), "gateway", "test-gw")));
    }

    @Test
    void docsMetricsNamesEveryMetricTheGatewayServesAndEveryOneTheAlertsUse() throws Exception {
        Set<String> documented = new TreeSet<>();
        Matcher named = Pattern.compile("`((?:trunkgate|jvm|process|system)_[a-z0-9_]+)`")
                .matcher(Files.readString(Path.of("docs/metrics.md")));
        while (named.find()) {
            documented.add(named.group(1));
        }
        Set<String> served = new TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) ").matcher(atStart);
        while (type.find()) {
            served.add(type.group(1));
        }
        for (String family : served) {
            String base = family.endsWith("_max") ? family.substring(0, family.length() - 4) : family;
            assertTrue(documented.contains(family) || documented.contains(base), family + " is not in docs/metrics.md");
        }
        Matcher used = Pattern.compile("\\b((?:trunkgate|jvm|process|system)_[a-z0-9_]+)")
                .matcher(Files.readString(Path.of("ops/prometheus/alerts.yml")));
        while (used.find()) {
            String metric = used.group(1).replaceAll("_(bucket|count|sum)$", "");
            assertTrue(documented.contains(metric), "alerts.yml uses " + metric + ", not in docs/metrics.md");
        }
    }

    @Test
    void everyCounterIsAtZeroForTheConfiguredPeersAndCarriersBeforeTheFirstCall() {
        Map<String, Map<String, String>> zero = Map.ofEntries(
                Map.entry("trunkgate_calls_admitted_total", Map.of("peer", "acme")),
                Map.entry("trunkgate_calls_rejected_total", Map.of("peer", "acme", "reason", "limited")),
                Map.entry("trunkgate_calls_shed_total", Map.of("peer", "acme", "reason", "overload")),
                Map.entry("trunkgate_reroutes_total", Map.of("carrier", "a", "reason", "over_max_wait")),
                Map.entry("trunkgate_pacing_delay_seconds_count", Map.of("carrier", "a")),
                Map.entry("trunkgate_admission_to_send_seconds_count", Map.of("carrier", "a")),
                Map.entry("trunkgate_config_reload_refused_total", Map.of()),
                Map.entry("trunkgate_sip_requests_total", Map.of("method", "BYE")),
                Map.entry("trunkgate_sip_requests_refused_total", Map.of("reason", "unknown_dialog")),
                Map.entry("trunkgate_sip_requests_absorbed_total", Map.of("reason", "refusal_ack")),
                Map.entry("trunkgate_sip_responses_dropped_total", Map.of("reason", "no_transaction")),
                Map.entry("trunkgate_redis_errors_total", Map.of("op", "give-back")));
        zero.forEach((name, labels) -> assertEquals(0.0, value(atStart, name, labels), name + labels));
        assertEquals(0.0, value(atStart, "trunkgate_calls_rejected_total", Map.of("reason", "unknown_source")));
        assertEquals(1.0, value(atStart, "trunkgate_redis_available", Map.of()), "decisions come from Redis");
    }

    @Test
    void everyInviteFromAnUnknownAddressIsCountedAndTheAckOfIts403IsNotAnUnknownDialog() throws Exception {
        AdminClient admin = new AdminClient(gateway.adminAddress());
        List<SipAgent.Call> calls = new ArrayList<>();
        int invites = 12; // over the 5 a second answered to one source
        for (int i = 0; i < invites; i++) {
            calls.add(stranger.invite(GW, config.sipPort(), "+1555" + i));
        }
        Await.atMost(Duration.ofSeconds(10)).alias("every INVITE counted").until(() -> Metrics.value(
                admin.get("/metrics").body(), "trunkgate_calls_rejected_total", Map.of("reason", "unknown_source"))
                .orElse(0) >= invites);
        assertEquals(403, calls.get(0).awaitFinal(5000).getStatusCode(), "the first INVITE is answered 403");
        long answered = calls.stream().filter(c -> c.responses().stream().anyMatch(r -> r.getStatusCode() == 403))
                .count();
        assertTrue(answered > 0, "some INVITEs were answered 403");
        long acks = answered;
        Await.atMost(Duration.ofSeconds(10)).alias("the ACKs of the 403s absorbed as such").until(() -> Metrics.value(
                admin.get("/metrics").body(), "trunkgate_sip_requests_absorbed_total", Map.of("reason", "refusal_ack"))
                .orElse(0) >= acks);
        String after = admin.get("/metrics").body();
        assertEquals(0.0, value(after, "trunkgate_sip_requests_refused_total", Map.of("reason", "unknown_dialog")),
                "no ACK of a 403 counted as a request in an unknown dialog");
        assertEquals(0.0, value(after, "trunkgate_calls_admitted_total", Map.of("peer", "acme")));
    }
}
