package io.trunkgate.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every metric the Grafana dashboard (ops/grafana/trunkgate.json) queries is in /metrics of a running gateway
 * after calls admitted, refused, paced and rerouted: a renamed meter cannot leave a panel silently empty.
 */
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("ops", "grafana", "trunkgate.json");
    private static final String GW = "127.0.0.1";
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> PROMQL_WORDS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right", "bool", "and", "or", "unless", "offset");
    private static final Pattern SAMPLE_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

    /** The metric names in a PromQL expression: identifiers outside strings, label matchers and ranges that are
     * neither a function (followed by a parenthesis), nor a keyword, nor a label list after by/without. */
    static Set<String> metricNames(String expr) {
        String bare = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", "\"\"")
                .replaceAll("\\{[^}]*}", " ")
                .replaceAll("\\[[^]]*]", " ")
                .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            String rest = bare.substring(m.end()).stripLeading();
            if (!rest.startsWith("(") && !PROMQL_WORDS.contains(m.group()) && !m.group().matches("(?i)inf|nan")) {
                names.add(m.group());
            }
        }
        return names;
    }

    private static Set<String> dashboardMetrics() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
        Set<String> names = new TreeSet<>();
        for (JsonNode expr : dashboard.findValues("expr")) {
            names.addAll(metricNames(expr.asText()));
        }
        return names;
    }

    private static Set<String> exposedNames(String exposition) {
        Set<String> exposed = new TreeSet<>();
        Matcher sample = SAMPLE_NAME.matcher(exposition);
        while (sample.find()) {
            exposed.add(sample.group(1));
        }
        return exposed;
    }

    @Test
    void theNamesOfAnExpressionAreItsMetricsOnly() {
        assertEquals(Set.of("trunkgate_pacing_delay_seconds_bucket"), metricNames("histogram_quantile(0.99, "
                + "sum by (carrier, le) (rate(trunkgate_pacing_delay_seconds_bucket{gateway=~\"$gateway\"}[5m])))"));
        assertEquals(Set.of("a_total", "b_total"), metricNames("sum without (x) (rate(a_total[1m])) / on (y) b_total"));
    }

    @Test
    void everyMetricTheDashboardQueriesIsExposedByARunningGateway() throws Exception {
        Set<String> queried = dashboardMetrics();
        assertTrue(queried.size() >= 10, "the dashboard's panels: " + queried);

        SipAgents agents = new SipAgents();
        Gateway gateway = null;
        try {
            SipAgent caller = agents.start("127.0.0.81");
            SipAgent carrierA = agents.start("127.0.0.82");
            SipAgent carrierB = agents.start("127.0.0.83");
            int sipPort = RedisServerProcess.freePort();
            Duration wait = Duration.ofSeconds(5);
            gateway = Gateway.start(TestConfigs.onSharedRedis("dash", sipPort).instance("dashboard")
                    .peer("acme", "127.0.0.81", Limit.exact(Duration.ofMinutes(1), 2)).maxConcurrent("acme", 5)
                    .carrier("carrier-a", carrierA, 30, wait, wait)
                    .carrier("carrier-b", carrierB, 2.5, Duration.ofMillis(100), wait, "carrier-a")
                    .route("+2", "carrier-b")
                    .build());
            // the second call finds carrier-b's next slot beyond its max-wait and moves to carrier-a; the third
            // is over acme's 2 a minute
            assertEquals(200, caller.invite(GW, sipPort, "+25550001").awaitFinal(5000).getStatusCode());
            assertEquals(200, caller.invite(GW, sipPort, "+25550002").awaitFinal(5000).getStatusCode());
            assertEquals(503, caller.invite(GW, sipPort, "+25550003").awaitFinal(5000).getStatusCode());

            // Gauges sampled in the background (calls in progress of capped scopes) appear once their first
            // sample has come back from Redis.
            AdminClient admin = new AdminClient(gateway.adminAddress());
            String exposition = Await.until(Duration.ofSeconds(10), () -> admin.get("/metrics").body(),
                    body -> exposedNames(body).containsAll(queried));
            Set<String> missing = new TreeSet<>(queried);
            missing.removeAll(exposedNames(exposition));
            assertTrue(missing.isEmpty(), "queried by the dashboard but not in /metrics: " + missing
                    + "\n/metrics:\n" + exposition);
        } finally {
            if (gateway != null) {
                gateway.close();
            }
            agents.close();
        }
    }
}
