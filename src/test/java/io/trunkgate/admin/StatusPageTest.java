package io.trunkgate.admin;

import static io.trunkgate.testing.History.total;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.HeadlessChromium;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.htmlunit.BrowserVersion;
import org.htmlunit.WebClient;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page in a headless browser: its script polls the JSON API and renders a row per peer limit and per
 * carrier, and charts of /api/history, after calls admitted, refused over a limit, paced and rerouted. The page
 * runs in HtmlUnit (a browser in this JVM, with JavaScript), so nothing has to be installed; a screenshot is taken
 * with headless chromium ({@link HeadlessChromium}: skipped where it is not installed; .ci/run installs it).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StatusPageTest {

    private static final String GW = "127.0.0.1";
    /** Where status.html's charts draw zero: 150 px high, 20 px below the plot. */
    private static final double CHART_BASELINE_Y = 130.0;
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private JsonNode history;

    @TempDir
    static Path profile;

    @BeforeAll
    void start() throws Exception {
        SipAgent acme = agents.start("127.0.0.71");
        SipAgent carrierA = agents.start("127.0.0.72");
        SipAgent carrierB = agents.start("127.0.0.73");
        SipAgent globex = agents.start("127.0.0.74");
        int sipPort = RedisServerProcess.freePort();
        RedisSettings redis = TestConfigs.sharedRedis("page");
        Duration wait = Duration.ofSeconds(5);
        gateway = Gateway.start(new TestConfigs(redis, sipPort).instance("status-page")
                .peer("acme", "127.0.0.71", Limit.exact(Duration.ofSeconds(1), 10), Limit.exact(Duration.ofMinutes(1), 300))
                .peer("globex", "127.0.0.74", Limit.bucketed(Duration.ofDays(1), 100_000, Duration.ofMinutes(1)),
                        Limit.exact(Duration.ofSeconds(1), 2), Limit.exact(Duration.ofSeconds(1), 1).in(LimitMode.SHADOW))
                // matched from any address (allow-any-source = true in its file); the others' addresses are more specific
                .peer("anyone", "0.0.0.0/0")
                .maxConcurrent("acme", 50)
                .carrier("carrier-a", carrierA, 30, wait, wait)
                .maxConcurrent("carrier-a", 100)
                .carrier("carrier-b", carrierB, 0.1, Duration.ofMillis(100), wait, "carrier-a")
                // named by a host name (resolved from /etc/hosts): its addresses are listed with their health
                .carrier("carrier-named", "sip:localhost:" + carrierB.port() + ";transport=udp", 10, wait, wait)
                .route("+1", "carrier-a")
                .route("+2", "carrier-b")
                .build());
        for (int i = 0; i < 3; i++) {
            assertEquals(200, acme.invite(GW, sipPort, "+1555000" + i).awaitFinal(5000).getStatusCode());
        }
        // carrier-b's next slot is 10 s away after the first call, far beyond its max-wait however slow the machine:
        // the second moves on
        for (int i = 0; i < 2; i++) {
            assertEquals(200, acme.invite(GW, sipPort, "+2555000" + i).awaitFinal(5000).getStatusCode());
        }
        List<SipAgent.Call> burst = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            burst.add(globex.invite(GW, sipPort, "+1555100" + i));
        }
        List<Integer> statuses = new ArrayList<>();
        for (SipAgent.Call call : burst) {
            statuses.add(call.awaitFinal(5000).getStatusCode());
        }
        assertEquals(List.of(200, 200, 503, 503), statuses.stream().sorted().toList(), "globex: 2 per second");
        history = awaitHistory();
    }

    /** The history once its samples hold every call above (the sampler runs once a second). */
    private JsonNode awaitHistory() throws Exception {
        AdminClient admin = new AdminClient(gateway.adminAddress());
        JsonNode history = Await.until(Duration.ofSeconds(10), () -> admin.get("/api/history").json(),
                h -> total(h, "peers", "globex", "refused") == 2 && total(h, "carriers", "carrier-a", "sent") == 6);
        if (total(history, "peers", "globex", "refused") != 2 || total(history, "carriers", "carrier-a", "sent") != 6) {
            throw new AssertionError("the history did not catch up with the calls within 10 s: " + history);
        }
        return history;
    }

    private static JsonNode series(JsonNode history, String kind, String id) {
        for (JsonNode entry : history.get(kind)) {
            if (entry.get("id").asText().equals(id)) {
                return entry;
            }
        }
        throw new AssertionError("no " + id + " in " + kind + ": " + history);
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        agents.close();
    }

    private String url() {
        return "http://127.0.0.1:" + gateway.adminAddress().getPort() + "/";
    }

    /**
     * The page as the browser shows it once its script's first refresh has fetched the four JSON documents and
     * drawn them (in one job of the browser's). The refreshes the script schedules after that are cancelled and
     * the job running, if any, awaited, so that the DOM stands still, drawn whole, while the test reads it.
     */
    private String renderedPage() throws Exception {
        try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
            browser.getOptions().setFetchPolyfillEnabled(true);
            browser.getOptions().setThrowExceptionOnScriptError(true);
            browser.getOptions().setThrowExceptionOnFailingStatusCode(true);
            HtmlPage page = browser.getPage(url());
            boolean drawn = Await.until(Duration.ofSeconds(30), () -> drawn(page), d -> d);
            // a job running meanwhile may schedule the next refresh as it ends: cancelled in the next round
            int rounds = 0;
            do {
                page.getEnclosingWindow().getJobManager().removeAllJobs();
            } while (browser.waitForBackgroundJavaScript(200) > 0 && ++rounds < 50);
            assertTrue(rounds < 50, "the page's script kept scheduling jobs");
            String dom = page.executeJavaScript("document.documentElement.outerHTML").getJavaScriptResult().toString();
            assertTrue(drawn, "the page did not draw the API's answers within 30 s: " + dom);
            return dom;
        }
    }

    /** Whether the script has drawn the summary and the charts (the first and the last thing a refresh draws). */
    private static boolean drawn(HtmlPage page) {
        try {
            return page.getElementById("summary").getTextContent().startsWith("config generation")
                    && !page.querySelectorAll("#carrier-charts svg").isEmpty();
        } catch (RuntimeException drawingMeanwhile) {
            return false; // read while the script changed the DOM: asked again
        }
    }

    @Test
    void theRenderedPageShowsARowPerPeerLimitAndPerCarrierFromTheApi() throws Exception {
        String dom = renderedPage();
        assertTrue(dom.contains("<tr data-peer=\"acme\">"), dom);
        assertTrue(dom.contains("<tr data-peer=\"globex\">"), dom);
        assertEquals(6, dom.split("<tr data-peer=", -1).length - 1, "acme's two limits, globex's three, anyone's none");
        assertTrue(dom.contains("<tr data-peer=\"anyone\"><td class=\"blocked\">anyone (ANY SOURCE)</td>"),
                "a peer matched from any address is marked: " + dom);
        assertFalse(dom.contains("acme (ANY SOURCE)"), dom);
        // the burst of four in one second: the shadow 1/s would have refused the second (admitted) and both
        // calls the enforced 2/s refused
        assertTrue(dom.contains("<td class=\"shadow\">1 / 1s (peer:globex) shadow: would refuse 3</td>"),
                "globex's shadow limit beside its enforced ones: " + dom);
        assertTrue(dom.contains("<td class=\"num\">5 / 300</td>"), "acme's 1 min window holds its five calls: " + dom);
        assertTrue(dom.contains("<td class=\"num\">5 / 50 (peer:acme)</td>"), "acme's calls up: " + dom);
        assertTrue(dom.contains("<tr data-carrier=\"carrier-a\">"), dom);
        assertTrue(dom.contains("<td class=\"num\">6 / 100 (carrier:carrier-a)</td>"), "carrier-a's calls up: " + dom);
        assertTrue(dom.contains("<td class=\"num\">6 sent, ASR 100.0%, NER 100.0%, PDD "),
                "carrier-a answered its six INVITEs: " + dom);
        assertTrue(dom.contains("<td class=\"num\">5 calls, ASR 100.0%, NER 100.0%, PDD "),
                "acme's five admitted calls were answered: " + dom);
        assertTrue(dom.contains("<tr data-carrier=\"carrier-b\">"), dom);
        assertTrue(dom.matches("(?s).*<tr data-carrier=\"carrier-a\">.*?<td>up since [^<]+</td></tr>.*"),
                "carrier-a's health: " + dom);
        assertTrue(dom.matches("(?s).*<tr data-carrier=\"carrier-named\">.*? · 127\\.0\\.0\\.1:\\d+/udp up</td></tr>.*"),
                "carrier-named's address: " + dom);
        assertTrue(dom.contains("config generation 1"), dom);
    }

    @Test
    void theHistoryHoldsEachCallInTheSecondItHappened() {
        assertEquals(5, total(history, "peers", "acme", "admitted"));
        assertEquals(0, total(history, "peers", "acme", "refused"));
        assertEquals(2, total(history, "peers", "globex", "admitted"));
        assertEquals(2, total(history, "peers", "globex", "refused"));
        assertEquals(10.0, series(history, "peers", "acme").get("limitCps").get(0).asDouble(), "10 per second");
        assertEquals(2.0, series(history, "peers", "globex").get("limitCps").get(0).asDouble(), "not 100000 a day");
        assertEquals(6, total(history, "carriers", "carrier-a", "sent"), "3 + 2 from globex + 1 rerouted");
        assertEquals(1, total(history, "carriers", "carrier-b", "sent"));
        assertEquals(1, total(history, "carriers", "carrier-b", "reroutes"));
        assertEquals(0.1, series(history, "carriers", "carrier-b").get("cps").get(0).asDouble());
        int samples = history.get("times").size();
        assertTrue(samples >= 1 && samples <= 600, "one sample a second, at most 10 minutes: " + samples);
        for (String field : List.of("sent", "cps", "waitMs", "held", "reroutes")) {
            assertEquals(samples, series(history, "carriers", "carrier-a").get(field).size(), field);
        }
    }

    @Test
    void theChartsDrawTheHistory() throws Exception {
        String dom = renderedPage();
        List<double[]> refused = pathPoints(dom, "peer:globex", "refused");
        assertTrue(refused.stream().anyMatch(p -> p[1] < CHART_BASELINE_Y), "a refused spike above zero: " + dom);
        List<double[]> admitted = pathPoints(dom, "peer:acme", "admitted");
        assertTrue(admitted.stream().anyMatch(p -> p[1] < CHART_BASELINE_Y), "acme's admitted calls: " + dom);
        assertTrue(admitted.size() >= history.get("times").size(), "one point per sample, and more came since: "
                + admitted.size());
        List<double[]> sent = pathPoints(dom, "carrier:carrier-a:sent", "sent");
        assertTrue(sent.stream().anyMatch(p -> p[1] < CHART_BASELINE_Y), "calls sent to carrier-a: " + dom);
        assertTrue(pathPoints(dom, "carrier:carrier-b:held", "reroutes").stream()
                .anyMatch(p -> p[1] < CHART_BASELINE_Y), "carrier-b's reroute: " + dom);
        assertTrue(dom.contains("data-chart=\"carrier:carrier-b:wait\""), dom);
    }

    /** The points of the path of {@code series} in the chart {@code chart} of the rendered page. */
    private static List<double[]> pathPoints(String dom, String chart, String series) {
        Matcher svg = Pattern.compile("<svg[^>]*data-chart=\"" + Pattern.quote(chart) + "\".*?</svg>").matcher(dom);
        assertTrue(svg.find(), "no chart " + chart + ": " + dom);
        Matcher path = Pattern.compile("<path d=\"([^\"]*)\"[^>]*data-series=\"" + series + "\"").matcher(svg.group());
        assertTrue(path.find(), "no " + series + " path in " + svg.group());
        List<double[]> points = new ArrayList<>();
        Matcher point = Pattern.compile("[ML]([-\\d.]+),([-\\d.]+)").matcher(path.group(1));
        while (point.find()) {
            points.add(new double[] {Double.parseDouble(point.group(1)), Double.parseDouble(point.group(2))});
        }
        return points;
    }

    @Test
    void aScreenshotOfTheStatusPage() throws Exception {
        HeadlessChromium chromium = HeadlessChromium.onPathOrSkip(profile);
        Path png = Path.of("target", "status-page.png").toAbsolutePath();
        Files.deleteIfExists(png);
        chromium.screenshot(url(), png, 1280, 1400);
        HeadlessChromium.assertScreenshot(png, 1280, 1400, 20_000);
    }
}
