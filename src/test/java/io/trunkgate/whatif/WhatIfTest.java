package io.trunkgate.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.testing.GeneratedRecords;
import io.trunkgate.testing.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.htmlunit.BrowserVersion;
import org.htmlunit.WebClient;
import org.htmlunit.html.DomElement;
import org.htmlunit.html.DomNode;
import org.htmlunit.html.HtmlPage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * what-if against generated records, whose decisions come from a model of the limits written apart from the script
 * ({@link GeneratedRecords}): replayed through the same configuration by the gateway's own script on a scratch
 * redis-server, they must come out the same. Then a stricter configuration refuses more, and a shadow limit counts
 * what it would refuse.
 */
class WhatIfTest {

    @TempDir
    Path dir;

    private GatewayConfig config(String peerALimits) throws Exception {
        return ConfigLoader.load(GeneratedRecords.writeConfig(dir.resolve("conf"), peerALimits).resolve("gateway.conf"));
    }

    private Path records(int calls) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        GeneratedRecords.write(file, calls, 100_000, 36);
        return file;
    }

    @Test
    void replayingRecordsUnderTheConfigurationThatDecidedThemGivesTheirDecisions() throws Exception {
        Path records = records(20_000);
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());

        assertTrue(report.replayed() > 19_800, "replayed " + report.replayed());
        assertTrue(report.sameDecisions() >= report.replayed() * 999 / 1000,
                report.sameDecisions() + " of " + report.replayed() + ": " + report.differences());
        long refused = report.peers().values().stream().mapToLong(WhatIfReport.PeerFigures::recordedRefused).sum();
        assertTrue(refused > 1000, "the generated traffic went over the limits: " + refused + " refused");
        assertEquals(2, report.brokenCount());
        assertTrue(report.brokenLines().get(0).startsWith(records + ":102: "), report.brokenLines().toString());
        assertEquals(Integer.valueOf((int) (20_000 - report.replayed())),
                report.notReplayed().values().stream().reduce(0, Integer::sum), report.notReplayed().toString());
        assertTrue(report.notReplayed().keySet().stream().anyMatch(why -> why.startsWith("refused by an operator")));
    }

    @Test
    void eachCallIsReplayedWhenRedisDecidedItNotWhenItArrivedSoEveryDecisionIsTheRecordedOne() throws Exception {
        // the generated calls were decided up to 3 ms after they arrived: replayed at their arrival, calls at a
        // window's edge would fall on its other side
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records(10_000)),
                Optional.empty(), Optional.empty());
        assertTrue(report.replayed() > 9_900, "replayed " + report.replayed());
        assertEquals(report.replayed(), report.sameDecisions(), report.differencesBy() + " " + report.differences());
        assertEquals(0, report.differenceCount());
    }

    @Test
    void aCallDecidedByTheRedisDownPolicyIsNotReplayed() throws Exception {
        Path file = dir.resolve("down.jsonl");
        // decidedAt null: admitted by admission.redis-down (allow, or local's windows in memory)
        Files.writeString(file, call("d1", "2026-11-20T00:00:00Z", null, "admitted", "gw") + "\n");
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(file), Optional.empty(),
                Optional.empty());
        assertEquals(0, report.replayed());
        assertEquals(Map.of("Redis was unreachable: decided by admission.redis-down", 1), report.notReplayed());
    }

    @Test
    void aCallOfAPeerKnownByItsCredentialsIsReplayedAsItsRecordSaysWhateverItsAddress() throws Exception {
        Path conf = GeneratedRecords.writeConfig(dir.resolve("conf"), GeneratedRecords.PEER_A_LIMITS);
        Files.writeString(conf.resolve("peers/pbx.conf"), "id = pbx\nmatch.credentials { user = pbx, realm = r,"
                + " password = x }\nlimits = [ { window = 1s, max = 1 } ]\n");
        GatewayConfig config = ConfigLoader.load(conf.resolve("gateway.conf"));
        Path file = dir.resolve("pbx.jsonl");
        String roaming = call("p1", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", "admitted", "gw")
                .replace("10.0.0.1:5060", "198.51.100.9:5060").replace("\"peer\":\"a\"", "\"peer\":\"pbx\"");
        Files.writeString(file, roaming + "\n" + roaming.replace("p1", "p2") + "\n"
                + roaming.replace("p1", "p3").replace("\"peer\":\"pbx\"", "\"peer\":\"a\"") + "\n");

        WhatIfReport report = replay(config, file);

        assertEquals(2, report.peers().get("pbx").offered(), "found by the peer its credentials named");
        assertEquals(1, report.peers().get("pbx").admitted(), "its limit of 1 a second");
        assertEquals(Map.of("no peer of this configuration matches the source", 1), report.notReplayed(),
                "a peer known by its address is not found from another one");
    }

    @Test
    void eachCallWhoseDecisionDiffersIsNamedWhyByWhatTheRecordsShowAroundIt() throws Exception {
        GatewayConfig config = config(GeneratedRecords.PEER_A_LIMITS); // a: 10 per 1 s, 300 per 1 min
        // a call, then a minute later 12 within a second, all admitted: the replay refuses the last two
        StringBuilder records = new StringBuilder(call("c0", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z",
                "admitted", "gw1") + "\n");
        for (int i = 0; i < 12; i++) {
            String at = "2026-11-20T00:01:01." + (100 + 50 * i) + "Z";
            records.append(call("c" + (i + 1), at, at, "admitted", "gw1")).append('\n');
        }
        Path none = dir.resolve("none.jsonl");
        Files.writeString(none, records);
        String follows = "follows a call of peer:a whose decision differs, within 1 min before it: its windows held"
                + " other calls from then on";
        assertEquals(Map.of(WhatIfReport.NO_CAUSE, 1, follows, 1), replay(config, none).differencesBy(),
                "the records show nothing for the first: the configuration differs; the second follows it");

        Path shed = dir.resolve("shed.jsonl");
        Files.writeString(shed, records + call("s", "2026-11-20T00:01:00.500Z", null, "shed", "gw1") + "\n");
        assertEquals(Map.of(WhatIfReport.NO_CAUSE, 1, follows, 1), replay(config, shed).differencesBy(),
                "a call shed before admission never reached Redis: no sign of an outage");

        Path behind = dir.resolve("behind.jsonl");
        Files.writeString(behind, records + call("b", "2026-11-20T00:01:00.500Z", null, "shed", "gw1")
                .replace("\"admission\"", "\"transport\":\"udp\",\"admission\"") + "\n");
        assertTrue(replay(config, behind).differencesBy().keySet().iterator().next().startsWith("Redis did not answer"
                + " in time"), "a call read, sent to Redis and shed waiting for its answer may have counted there");

        Path outage = dir.resolve("outage.jsonl");
        Files.writeString(outage, records + call("u", "2026-11-20T00:01:00.500Z", null, "redis_unavailable", "gw1")
                + "\n");
        WhatIfReport afterOutage = replay(config, outage);
        assertEquals(2, afterOutage.differenceCount());
        assertTrue(afterOutage.differencesBy().keySet().iterator().next().startsWith("Redis did not answer in time within"
                + " 1 min before it"), afterOutage.differencesBy().toString());
        assertTrue(afterOutage.differences().get(0).matches(".*outage.jsonl:1[23]: recorded admitted, replayed"
                + " rejected: Redis did not answer in time.*"), afterOutage.differences().toString());

        Path stopped = dir.resolve("stopped.jsonl");
        Files.writeString(stopped, records + call("g2", "2026-11-20T00:00:58Z", "2026-11-20T00:00:58Z", "admitted",
                "gw2") + "\n");
        WhatIfReport afterStop = replay(config, stopped);
        assertEquals(1, afterStop.differencesBy().size(), afterStop.differencesBy().toString());
        assertTrue(afterStop.differencesBy().keySet().iterator().next().startsWith("gateway gw2 stopped writing"
                + " records at 2026-11-20T00:01:00Z"), afterStop.differencesBy().toString());

        Path late = dir.resolve("late.jsonl");
        Files.writeString(late, records.substring(records.indexOf("\n") + 1));
        assertTrue(replay(config, late).differencesBy().keySet().iterator().next().startsWith("the records begin"
                + " within 1 min before it"));
    }

    @Test
    void aGatewayKilledAndStartedAgainUnderItsInstanceIdIsNamedForTheCallsItLeftUnrecorded() throws Exception {
        // bench/soak.sh's gateway-kill: gw2, started at 00:00:00, admits 6 calls of peer a (10 per 1 s) from
        // 00:01:00.100 and is killed (SIGKILL) at 00:01:00.700 with them in progress: they counted in Redis but
        // have no record. gw1 admits 4 more and Redis refuses the fifth; gw2, started again at 00:01:05 under the
        // same instance-id, writes records to the end as gw1 does. Replayed, that fifth call is admitted.
        GatewayConfig config = config(GeneratedRecords.PEER_A_LIMITS);
        String firstRun = "2026-11-20T00:00:00Z";
        String secondRun = "2026-11-20T00:01:05Z";
        StringBuilder records = new StringBuilder();
        records.append(call("c0", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", "admitted", "gw1")).append('\n');
        // gw2's last record before the kill: a call that ended at 00:01:00.550
        records.append(runOf(call("k0", "2026-11-20T00:00:58.550Z", "2026-11-20T00:00:58.550Z", "admitted", "gw2"),
                firstRun)).append('\n');
        for (int i = 0; i < 5; i++) {
            String at = "2026-11-20T00:01:00." + (750 + 40 * i) + "Z";
            records.append(call("g" + i, at, at, i < 4 ? "admitted" : "rejected", "gw1")).append('\n');
        }
        records.append(call("g9", "2026-11-20T00:01:30Z", "2026-11-20T00:01:30Z", "admitted", "gw1")).append('\n');
        records.append(runOf(call("r9", "2026-11-20T00:01:30.100Z", "2026-11-20T00:01:30.100Z", "admitted", "gw2"),
                secondRun)).append('\n');
        Path killed = dir.resolve("killed.jsonl");
        Files.writeString(killed, records);

        WhatIfReport report = replay(config, killed);
        assertEquals(1, report.differenceCount(), report.differences().toString());
        assertEquals(Map.of("gateway gw2 stopped writing records at 2026-11-20T00:01:00.550Z and started again at "
                + secondRun + " (killed, or stopped), before the others: calls it had in progress then have no"
                + " record, yet counted in windows", 1), report.differencesBy());
        assertTrue(report.differences().get(0).matches(".*killed.jsonl:7: recorded rejected, replayed admitted:"
                + " gateway gw2 stopped writing records.*"), report.differences().toString());

        // the same records without gatewayStartedAt (written before the field): gw2's records go on to the end, so
        // nothing in them explains the call
        Path unmarked = dir.resolve("unmarked.jsonl");
        Files.writeString(unmarked, records.toString().replaceAll("\"gatewayStartedAt\":\"[^\"]*\",", ""));
        assertEquals(Map.of(WhatIfReport.NO_CAUSE, 1), replay(config, unmarked).differencesBy());
    }

    @Test
    void aGatewayKilledAfterItsLastRecordIsNamedForTheCallsItAdmittedUntilItStartedAgain() throws Exception {
        // bench/soak.sh's gateway-kill as a soak recorded it: gw2's last record ends at 00:01:00, yet it admits
        // calls of peer a (10 per 1 s) until it is killed at 00:01:00.320 (those have no record, they were in
        // progress); started again at 00:01:03. gw1 admits 4 and Redis refuses its fifth at 00:01:01.200: more than
        // 1 s after gw2's last record, but not after gw2 stopped, which the records place before it started again.
        GatewayConfig config = config("{ window = 1s, max = 10 }");
        StringBuilder records = new StringBuilder();
        records.append(call("c0", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", "admitted", "gw1")).append('\n');
        records.append(runOf(call("k0", "2026-11-20T00:00:58Z", "2026-11-20T00:00:58Z", "admitted", "gw2"),
                "2026-11-20T00:00:00Z")).append('\n');
        for (int i = 0; i < 5; i++) {
            String at = java.time.Instant.parse("2026-11-20T00:01:01.040Z").plusMillis(40L * i).toString();
            records.append(call("g" + i, at, at, i < 4 ? "admitted" : "rejected", "gw1")).append('\n');
        }
        records.append(call("g9", "2026-11-20T00:01:30Z", "2026-11-20T00:01:30Z", "admitted", "gw1")).append('\n');
        records.append(runOf(call("r9", "2026-11-20T00:01:30.100Z", "2026-11-20T00:01:30.100Z", "admitted", "gw2"),
                "2026-11-20T00:01:03Z")).append('\n');
        Path killed = dir.resolve("killed-late.jsonl");
        Files.writeString(killed, records);

        WhatIfReport report = replay(config, killed);
        assertEquals(1, report.differenceCount(), report.differences().toString());
        assertTrue(report.differences().get(0).matches(".*killed-late.jsonl:7: recorded rejected, replayed admitted:"
                + " gateway gw2 stopped writing records at 2026-11-20T00:01:00Z and started again at"
                + " 2026-11-20T00:01:03Z.*"), report.differences().toString());
    }

    @Test
    void aCallRedisAnsweredTooLateIsNamedUntilWithinItsPeersWindowAfterTheGatewayGaveUpOnIt() throws Exception {
        // bench/soak.sh's Redis loss: a call arrives at 00:01:00, its command reaches Redis late (it counts from
        // 00:01:00.450) and the gateway gives up on it at 00:01:00.500, refusing it; its late answer is revoked
        // after. Meanwhile 9 calls are admitted and Redis refuses the tenth at 00:01:01.400, more than 1 s after
        // the late call arrived but within 1 s of when the gateway gave up on it.
        GatewayConfig config = config("{ window = 1s, max = 10 }");
        StringBuilder records = new StringBuilder();
        records.append(call("c0", "2026-11-20T00:00:00Z", "2026-11-20T00:00:00Z", "admitted", "gw1")).append('\n');
        records.append(call("u", "2026-11-20T00:01:00Z", null, "redis_unavailable", "gw1")
                .replace("\"endedAt\":\"2026-11-20T00:01:02Z\"", "\"endedAt\":\"2026-11-20T00:01:00.500Z\""))
                .append('\n');
        for (int i = 0; i < 10; i++) {
            String at = java.time.Instant.parse("2026-11-20T00:01:00.550Z").plusMillis(i < 9 ? 90L * i : 850)
                    .toString();
            records.append(call("a" + i, at, at, i < 9 ? "admitted" : "rejected", "gw1")).append('\n');
        }
        Path late = dir.resolve("answered-late.jsonl");
        Files.writeString(late, records);

        WhatIfReport report = replay(config, late);
        assertEquals(1, report.differenceCount(), report.differences().toString());
        assertTrue(report.differences().get(0).matches(".*answered-late.jsonl:12: recorded rejected, replayed"
                + " admitted: Redis did not answer in time within 1 s before it.*"), report.differences().toString());
    }

    /** {@code record} as written by the run of its gateway started at {@code startedAt}. */
    private static String runOf(String record, String startedAt) {
        return record.replace("\"sourceAddress\"", "\"gatewayStartedAt\":\"" + startedAt + "\",\"sourceAddress\"");
    }

    private static WhatIfReport replay(GatewayConfig config, Path records) throws Exception {
        return WhatIf.replay(config, List.of(records), Optional.empty(), Optional.empty());
    }

    /** A call of peer a (10.0.0.1), ended 2 s after it arrived; {@code decidedAt} null: Redis did not decide it. */
    private static String call(String callId, String invitedAt, String decidedAt, String admission, String gateway) {
        return "{\"callId\":\"" + callId + "\",\"fromTag\":\"f\",\"cseq\":1,\"gateway\":\"" + gateway
                + "\",\"sourceAddress\":\"10.0.0.1:5060\",\"peer\":\"a\",\"requestUser\":\"+44207\","
                + "\"admission\":\"" + admission + "\",\"refusedBy\":null,\"invitedAt\":\"" + invitedAt + "\","
                + "\"decidedAt\":" + (decidedAt == null ? "null" : "\"" + decidedAt + "\"") + ",\"endedAt\":\""
                + java.time.Instant.parse(invitedAt).plusSeconds(2) + "\",\"attempts\":[],\"reroutes\":[]}";
    }

    @Test
    void aStricterConfigurationRefusesMoreAndAShadowLimitCountsWhatItWouldRefuse() throws Exception {
        Path records = records(5_000);
        WhatIfReport report = WhatIf.replay(
                config("{ window = 1s, max = 5 }, { window = 1s, max = 3, mode = shadow }"),
                List.of(records), Optional.empty(), Optional.empty());
        WhatIfReport.PeerFigures a = report.peers().get("a");
        long refused = a.refusedBy().getOrDefault("peer:a 5/1000ms", 0L);
        assertTrue(refused > a.recordedRefused(), "a max of 5 refuses more than 10 did: " + a);
        assertTrue(a.wouldRefuse().getOrDefault("peer:a 3/1000ms", 0L) > refused, a.toString());
    }

    @Test
    void theHtmlReportOpensInABrowserWithAChartPerPeerAgainstItsLimits() throws Exception {
        Path records = records(3_000);
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());
        Path html = dir.resolve("what-if.html");
        Files.writeString(html, HtmlReport.of(report));
        try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
            browser.getOptions().setThrowExceptionOnScriptError(true);
            HtmlPage page = browser.getPage(html.toUri().toURL());
            List<String> charts = new ArrayList<>();
            for (DomNode svg : page.querySelectorAll("svg[data-peer]")) {
                String peer = ((DomElement) svg).getAttribute("data-peer");
                charts.add(peer);
                List<DomNode> lines = page.querySelectorAll("svg[data-peer='" + peer + "'] polyline");
                assertEquals(2, lines.size(), "admitted and refused");
                String points = ((DomElement) lines.get(1)).getAttribute("points");
                assertTrue(points.split(" ").length > 10, "a point per bucket: " + points);
            }
            assertEquals(List.of("a", "b", "c"), charts, "one chart per peer");
            // peer a: its two limits; b: its own and its group's; c: the group's
            assertEquals(5, page.querySelectorAll("svg[data-peer] line.limit").size());
            assertEquals(2, page.querySelectorAll("svg[data-carrier] line.limit").size(), "x's and y's cps");
            // each limit's line labelled, readably
            List<String> labels = new ArrayList<>();
            page.querySelectorAll("svg[data-peer='a'] text.limit-label").forEach(t -> labels.add(t.getTextContent()));
            assertEquals(List.of("peer:a 10 per 1 s: 10/s", "peer:a 300 per 1 min: 5/s"), labels);
            assertEquals(7, page.querySelectorAll("svg text.limit-label").size(), "one label per limit line");

            // what the text report says: refusals by limit, the calls not replayed, the lines skipped
            String text = page.asNormalizedText();
            for (var peer : report.peers().entrySet()) {
                peer.getValue().refusedBy().forEach((limit, n) -> assertTrue(text.contains(peer.getKey()
                        + ": refused by " + ReportText.limit(limit) + ": " + n), limit + " in\n" + text));
            }
            assertTrue(text.contains("a: refused by peer:a 10 per 1 s: "), text);
            assertTrue(text.contains("group:g 60 per 10 s (1 s steps)"), text);
            report.notReplayed().forEach((why, n) -> assertTrue(text.contains(n + ": " + why), why + " in\n" + text));
            assertEquals(2, page.querySelectorAll("#skipped li").size());
            assertTrue(text.contains("Same decision as recorded: " + report.sameDecisions() + " of "
                    + report.replayed()), text);
            assertTrue(text.contains("delay ms p50/p95/p99/max"), text);
            WhatIfReport.CarrierFigures x = report.carriers().get("x");
            assertTrue(text.contains(x.delayMs().get("p50") + " / " + x.delayMs().get("p95") + " / "
                    + x.delayMs().get("p99") + " / " + x.delayMs().get("max")), "x's delays: " + text);
            assertFalse(text.contains("{p50=") || text.contains("/1000ms"), "no map or ms limit syntax: " + text);
        }
    }

    @Test
    void theHtmlReportListsTheCallsWhoseDecisionDiffersAndWhy() throws Exception {
        // a stricter limit than the records': the calls it refuses differ, for no cause the records show
        WhatIfReport report = WhatIf.replay(config("{ window = 1s, max = 5 }"), List.of(records(3_000)),
                Optional.empty(), Optional.empty());
        assertTrue(report.differenceCount() > 0, report.toString());
        Path html = dir.resolve("differs.html");
        Files.writeString(html, HtmlReport.of(report));
        try (WebClient browser = new WebClient(BrowserVersion.CHROME)) {
            HtmlPage page = browser.getPage(html.toUri().toURL());
            String text = page.asNormalizedText();
            assertTrue(text.contains("Calls whose decision differs: " + report.differenceCount()), text);
            assertTrue(report.differencesBy().get(WhatIfReport.NO_CAUSE) > 0, report.differencesBy().toString());
            report.differencesBy().forEach((why, n) -> assertTrue(text.contains(n + ": " + why), why + " in\n" + text));
            assertEquals(report.differences().size(), page.querySelectorAll("#differences + ul li").size());
            assertTrue(text.contains(report.differences().get(0)), text);
        }
    }

    @Test
    void theHtmlReportOpensInHeadlessChromiumWithOneChartPerPeerAndPerCarrier() throws Exception {
        HeadlessChromium chromium = HeadlessChromium.onPathOrSkip(dir.resolve("chromium"));
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records(3_000)),
                Optional.empty(), Optional.empty());
        assertEquals(List.of("a", "b", "c"), List.copyOf(report.peers().keySet()));
        assertEquals(List.of("x", "y"), List.copyOf(report.carriers().keySet()));
        Path html = dir.resolve("what-if.html");
        Files.writeString(html, HtmlReport.of(report));

        Path png = dir.resolve("what-if.png");
        chromium.screenshot(html.toUri().toString(), png, 1100, 1800);
        HeadlessChromium.assertScreenshot(png, 1100, 1800, 30_000);

        String dom = chromium.dumpDom(html.toUri().toString());
        for (String peer : report.peers().keySet()) {
            assertEquals(1, count(dom, "<svg class=\"chart\" data-peer=\"" + peer + "\""), "one chart of peer " + peer);
        }
        for (String carrier : report.carriers().keySet()) {
            assertEquals(1, count(dom, "<svg class=\"chart\" data-carrier=\"" + carrier + "\""),
                    "one chart of carrier " + carrier);
        }
        assertEquals(report.peers().size() + report.carriers().size(), count(dom, "<svg class=\"chart\""),
                "no other chart");
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    @Test
    void admittedCallsArePacedThroughTheirCarriersAndThoseBeyondMaxWaitGoToTheNext() throws Exception {
        Path records = records(20_000);
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());
        WhatIfReport.CarrierFigures x = report.carriers().get("x");
        WhatIfReport.CarrierFigures y = report.carriers().get("y");
        long admitted = report.peers().values().stream().mapToLong(WhatIfReport.PeerFigures::admitted).sum();
        assertEquals(admitted, x.sent() - x.failedOver() + y.sent() - y.failedOver() + x.noCarrierLeft()
                + y.noCarrierLeft(), "each admitted call ends at a carrier that answered it, or with none left");
        assertTrue(x.overMaxWait() > 0, "bursts over x's 5 cps went on to y: " + x);
        assertEquals(0, x.noCarrierLeft(), "y was left after x");
        assertEquals(0, x.atCapacity() + y.atCapacity(), "no carrier has a cap");
        assertTrue(x.delayMs().get("max") <= 1000, "never held beyond max-wait: " + x.delayMs());
        assertTrue(x.delayMs().get("p99") > 0, "bursts were paced: " + x.delayMs());
        // never more than 5 a second at x: over the calls' span, at most 5 per second plus the first
        long spanSeconds = x.timeline().admitted().size() * x.timeline().bucketSeconds();
        assertTrue(x.sent() <= 5 * spanSeconds + 1, x.sent() + " sent in " + spanSeconds + " s");
    }

    @Test
    void callsRefusedByAPeersCapAreReplayedAndRefusedByItAgain() throws Exception {
        Path records = records(20_000);
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());

        WhatIfReport.CapFigures cap = report.caps().get("peer:c max-concurrent");
        assertEquals(GeneratedRecords.PEER_C_CAP, cap.max());
        assertTrue(cap.recordedOver() > 100, "the generated calls of c went over its cap: " + cap);
        assertTrue(Math.abs(cap.over() - cap.recordedOver()) <= cap.recordedOver() / 1000, cap.toString());
        assertEquals(cap.over(), report.peers().get("c").refusedBy().get("peer:c max-concurrent"));
        assertTrue(report.notReplayed().keySet().stream().noneMatch(why -> why.contains("max-concurrent")),
                report.notReplayed().toString());
        WhatIfReport.PeerFigures c = report.peers().get("c");
        assertTrue(c.sameDecision() >= c.offered() * 999 / 1000, c.sameDecision() + " of " + c.offered());
    }

    @Test
    void aLowerCapRefusesMoreAndAShadowCapCountsWhatItWouldRefuse() throws Exception {
        Path records = records(10_000);
        config(GeneratedRecords.PEER_A_LIMITS);
        Files.writeString(dir.resolve("conf/peers/c.conf"),
                "id = c\nmatch.sources = [\"10.0.0.3\"]\ngroup = g\nmax-concurrent = 10\n");
        Files.writeString(dir.resolve("conf/groups/g.conf"), "id = g\nlimits = [ { window = 10s, max = 60, "
                + "precision = 1s, mode = enforce } ]\nmax-concurrent = 15\nmode = shadow\n");
        WhatIfReport report = WhatIf.replay(ConfigLoader.load(dir.resolve("conf/gateway.conf")), List.of(records), Optional.empty(), Optional.empty());

        WhatIfReport.CapFigures peer = report.caps().get("peer:c max-concurrent");
        assertEquals(10, peer.max());
        assertTrue(peer.over() > peer.recordedOver(), "a cap of 10 refuses more than 40 did: " + peer);
        WhatIfReport.CapFigures group = report.caps().get("group:g max-concurrent");
        assertTrue(group.shadow() && group.over() > 0, "b's and c's calls went over 15 at once: " + group);
        assertEquals(0, group.recordedOver(), "the records name no group cap");
        assertEquals(group.over(), report.peers().get("b").wouldRefuse().getOrDefault("group:g max-concurrent", 0L)
                + report.peers().get("c").wouldRefuse().getOrDefault("group:g max-concurrent", 0L));
    }

    @Test
    void aCarrierAtItsCapMovesCallsOnAndHoldsEachUntilItEnds() throws Exception {
        Path records = records(10_000);
        config(GeneratedRecords.PEER_A_LIMITS);
        Files.writeString(dir.resolve("conf/carriers/x.conf"),
                "id = x\nuri = \"sip:192.0.2.10\"\ncps = 5\nmax-wait = 1s\nmax-concurrent = 3\n");
        WhatIfReport report = WhatIf.replay(ConfigLoader.load(dir.resolve("conf/gateway.conf")), List.of(records),
                Optional.empty(), Optional.empty());

        WhatIfReport.CarrierFigures x = report.carriers().get("x");
        WhatIfReport.CapFigures cap = report.caps().get("carrier:x max-concurrent");
        assertEquals(3, cap.max());
        assertTrue(x.atCapacity() > x.sent(), "calls last minutes, 3 at a time fill x: " + x);
        assertTrue(x.sent() > 100, "each call ending on the records' clock frees its place: " + x);
        assertEquals(x.atCapacity(), cap.over());
        // each call holds x until it ends or leaves it: at most 3 calls up there at once
        assertTrue(x.sent() < 3 * x.timeline().admitted().size() * x.timeline().bucketSeconds(), x.toString());
    }

    @Test
    void aCarrierAnsweringWhatItsFailoverOnListsMovesTheCallOnAsTheRecordAnswered() throws Exception {
        Path records = records(5_000);
        WhatIfReport failover = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());
        WhatIfReport.CarrierFigures x = failover.carriers().get("x");
        assertTrue(x.recordedFailedOver() > 50, "one in ten first carriers answered 503: " + x);
        assertTrue(x.failedOver() > 0 && x.failedOver() <= x.recordedFailedOver(), x.toString());

        Files.writeString(dir.resolve("conf/carriers/x.conf"),
                "id = x\nuri = \"sip:192.0.2.10\"\ncps = 5\nmax-wait = 1s\nfailover-on = [ 486 ]\n");
        WhatIfReport busy = WhatIf.replay(ConfigLoader.load(dir.resolve("conf/gateway.conf")), List.of(records),
                Optional.empty(), Optional.empty());
        WhatIfReport.CarrierFigures xBusy = busy.carriers().get("x");
        assertTrue(xBusy.failedOver() > 0 && xBusy.failedOver() != x.failedOver(),
                "x fails over on 486 now, not on 503: " + xBusy + " vs " + x);
    }

    @Test
    void aCarrierTheRecordNeverTriedAnswersAsItsFinalCarrierDid() throws Exception {
        config(GeneratedRecords.PEER_A_LIMITS);
        // +1555 goes to z (failing over on 503) then y; the record tried y only, which answered 503
        Files.writeString(dir.resolve("conf/carriers/z.conf"), "id = z\nuri = \"sip:192.0.2.12\"\ncps = 50\n");
        Files.writeString(dir.resolve("conf/routes.conf"),
                "routes = [ { prefix = \"+1555\", carriers = [z, y] }, { prefix = \"\", carriers = [y] } ]\n");
        Path file = dir.resolve("one.jsonl");
        Files.writeString(file, "{\"callId\":\"k1\",\"fromTag\":\"f\",\"cseq\":1,\"sourceAddress\":\"10.0.0.1:5060\","
                + "\"peer\":\"a\",\"requestUser\":\"+1555\",\"admission\":\"admitted\",\"refusedBy\":null,"
                + "\"invitedAt\":\"2026-11-20T00:00:00Z\",\"endedAt\":\"2026-11-20T00:00:02Z\",\"attempts\":["
                + "{\"carrier\":\"y\",\"slotWaitMs\":0,\"sentAt\":\"2026-11-20T00:00:00Z\",\"finalStatus\":503}],"
                + "\"reroutes\":[\"y->none:failure_response(503)\"]}\n");
        WhatIfReport report = WhatIf.replay(ConfigLoader.load(dir.resolve("conf/gateway.conf")), List.of(file),
                Optional.empty(), Optional.empty());

        WhatIfReport.CarrierFigures z = report.carriers().get("z");
        WhatIfReport.CarrierFigures y = report.carriers().get("y");
        assertEquals(List.of(1L, 1L, 0L), List.of(z.sent(), z.failedOver(), z.noCarrierLeft()), z.toString());
        assertEquals(List.of(1L, 1L, 1L), List.of(y.sent(), y.failedOver(), y.noCarrierLeft()), y.toString());
        assertEquals(1, y.recordedFailedOver());
    }

    @Test
    void onlyTheCallsBetweenFromAndToAreReplayed() throws Exception {
        Path records = records(2_000);
        WhatIfReport all = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records), Optional.empty(),
                Optional.empty());
        WhatIfReport firstHalf = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.of(java.time.Instant.parse("2026-11-20T00:01:40Z")));
        assertTrue(firstHalf.replayed() > 0 && firstHalf.replayed() < all.replayed(),
                firstHalf.replayed() + " of " + all.replayed());
        assertEquals(firstHalf.replayed(), firstHalf.sameDecisions(), "a window's start changes no decision here");
    }
}
