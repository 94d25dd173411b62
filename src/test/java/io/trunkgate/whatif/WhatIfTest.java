package io.trunkgate.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.testing.GeneratedRecords;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
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
        }
    }

    @Test
    void admittedCallsArePacedThroughTheirCarriersAndThoseBeyondMaxWaitGoToTheNext() throws Exception {
        Path records = records(20_000);
        WhatIfReport report = WhatIf.replay(config(GeneratedRecords.PEER_A_LIMITS), List.of(records),
                Optional.empty(), Optional.empty());
        WhatIfReport.CarrierFigures x = report.carriers().get("x");
        WhatIfReport.CarrierFigures y = report.carriers().get("y");
        long admitted = report.peers().values().stream().mapToLong(WhatIfReport.PeerFigures::admitted).sum();
        assertEquals(admitted, x.sent() + y.sent() + y.noCarrierLeft(), "each admitted call sent once, or dropped");
        assertTrue(x.overMaxWait() > 0, "bursts over x's 5 cps went on to y: " + x);
        assertEquals(0, x.noCarrierLeft(), "y was left after x");
        assertTrue(x.delayMs().get("max") <= 1000, "never held beyond max-wait: " + x.delayMs());
        assertTrue(x.delayMs().get("p99") > 0, "bursts were paced: " + x.delayMs());
        // never more than 5 a second at x: over the calls' span, at most 5 per second plus the first
        long spanSeconds = x.timeline().admitted().size() * x.timeline().bucketSeconds();
        assertTrue(x.sent() <= 5 * spanSeconds + 1, x.sent() + " sent in " + spanSeconds + " s");
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
