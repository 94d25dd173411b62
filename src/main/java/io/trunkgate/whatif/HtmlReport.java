package io.trunkgate.whatif;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The what-if report as one self-contained HTML file: what the text report says (per peer the calls admitted and
 * refused, by limit, and what shadow limits would refuse; per carrier the calls sent, paced and moved on; the calls
 * over each cap; the calls whose decision differs and why, those not replayed, the lines skipped), and per peer a
 * chart (inline SVG, no script) of the calls admitted and refused per second over time against the rate each of its
 * limits allows, each limit's line labelled; per carrier, of the calls sent and moved on against its cps.
 */
public final class HtmlReport {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 220;
    private static final int LEFT = 50;
    private static final int RIGHT = 300;
    private static final int TOP = 10;
    private static final int BOTTOM = 30;

    private HtmlReport() {
    }

    public static String of(WhatIfReport report) {
        StringBuilder html = new StringBuilder("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>trunkgate what-if</title>
                <style>
                  body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #1d2330; }
                  table { border-collapse: collapse; } td, th { padding: 2px 10px; text-align: right; }
                  td:first-child, th:first-child { text-align: left; } td.delay { white-space: nowrap; }
                  svg text { font: 11px system-ui, sans-serif; fill: #555; }
                  h2 { margin-top: 28px; } ul { margin-top: 4px; } .where { font-family: ui-monospace, monospace; }
                </style></head><body>
                <h1>What if: recorded calls replayed through the configuration</h1>
                """);
        html.append("<p id=\"same\">Same decision as recorded: ").append(report.sameDecisions()).append(" of ")
                .append(report.replayed()).append(" calls replayed (").append(percent(report.sameDecisions(),
                        report.replayed())).append(").</p>\n");
        decisions(html, report);
        html.append("<h2>Peers</h2>\n<table><tr><th>peer</th><th>offered</th><th>admitted</th><th>refused</th>"
                + "<th>recorded admitted</th><th>recorded refused</th><th>same decision</th></tr>\n");
        report.peers().forEach((id, p) -> html.append("<tr><td>").append(escape(id)).append("</td><td>")
                .append(p.offered()).append("</td><td>").append(p.admitted()).append("</td><td>")
                .append(p.refusedBy().values().stream().mapToLong(Long::longValue).sum()).append("</td><td>")
                .append(p.recordedAdmitted()).append("</td><td>").append(p.recordedRefused()).append("</td><td>")
                .append(p.sameDecision()).append(" (").append(percent(p.sameDecision(), p.offered()))
                .append(")</td></tr>\n"));
        html.append("</table>\n<ul id=\"refusals\">\n");
        report.peers().forEach((id, p) -> {
            p.refusedBy().forEach((limit, n) -> html.append("<li>").append(escape(id)).append(": refused by ")
                    .append(escape(ReportText.limit(limit))).append(": ").append(n).append("</li>\n"));
            p.wouldRefuse().forEach((limit, n) -> html.append("<li>").append(escape(id))
                    .append(": would refuse (shadow) ").append(escape(ReportText.limit(limit))).append(": ").append(n)
                    .append("</li>\n"));
        });
        html.append("</ul>\n");
        report.peers().forEach((id, p) -> chart(html, "peer", id, p.timeline(), "admitted/s", "refused/s"));
        if (!report.carriers().isEmpty()) {
            html.append("<h2>Carriers</h2>\n<table><tr><th>carrier</th><th>sent</th><th>over max-wait</th>"
                    + "<th>at capacity</th><th>failed over</th><th>no carrier left</th><th>" + ReportText.DELAYS
                    + "</th><th>recorded sent</th>"
                    + "<th>recorded over max-wait</th><th>recorded at capacity</th><th>recorded failed over</th>"
                    + "<th>recorded " + ReportText.DELAYS + "</th></tr>\n");
            report.carriers().forEach((id, c) -> html.append("<tr><td>").append(escape(id)).append("</td><td>")
                    .append(c.sent()).append("</td><td>").append(c.overMaxWait()).append("</td><td>")
                    .append(c.atCapacity()).append("</td><td>").append(c.failedOver()).append("</td><td>")
                    .append(c.noCarrierLeft()).append("</td><td class=\"delay\">")
                    .append(escape(ReportText.delays(c.delayMs())))
                    .append("</td><td>").append(c.recordedSent()).append("</td><td>").append(c.recordedOverMaxWait())
                    .append("</td><td>").append(c.recordedAtCapacity()).append("</td><td>")
                    .append(c.recordedFailedOver()).append("</td><td class=\"delay\">")
                    .append(escape(ReportText.delays(c.recordedDelayMs()))).append("</td></tr>\n"));
            html.append("</table>\n");
        }
        if (!report.caps().isEmpty()) {
            html.append("<h2>Caps</h2>\n<table><tr><th>cap</th><th>max</th><th>over</th><th>recorded over</th></tr>\n");
            report.caps().forEach((label, c) -> html.append("<tr><td>").append(escape(label)).append("</td><td>")
                    .append(c.max() == 0 ? "-" : c.max() + (c.shadow() ? " (shadow)" : "")).append("</td><td>")
                    .append(c.over()).append("</td><td>").append(c.recordedOver()).append("</td></tr>\n"));
            html.append("</table>\n");
        }
        report.carriers().forEach((id, c) -> chart(html, "carrier", id, c.timeline(), "sent/s", "over max-wait or cap/s"));
        return html.append("</body></html>\n").toString();
    }

    /** The calls whose decision differs (by why, the first ones listed), those not replayed, the lines skipped. */
    private static void decisions(StringBuilder html, WhatIfReport report) {
        if (report.differenceCount() > 0) {
            html.append("<h2>Calls whose decision differs: ").append(report.differenceCount())
                    .append("</h2>\n<ul id=\"differences\">\n");
            report.differencesBy().forEach((why, n) -> html.append("<li>").append(n).append(": ")
                    .append(escape(why)).append("</li>\n"));
            html.append("</ul>\n<ul class=\"where\">\n");
            report.differences().forEach(d -> html.append("<li>").append(escape(d)).append("</li>\n"));
            html.append("</ul>\n");
        }
        if (!report.notReplayed().isEmpty()) {
            html.append("<h2>Calls not replayed: ").append(report.notReplayed().values().stream()
                    .mapToInt(Integer::intValue).sum()).append("</h2>\n<ul id=\"not-replayed\">\n");
            report.notReplayed().forEach((why, n) -> html.append("<li>").append(n).append(": ").append(escape(why))
                    .append("</li>\n"));
            html.append("</ul>\n");
        }
        if (report.brokenCount() > 0) {
            html.append("<h2>Lines skipped, not call records: ").append(report.brokenCount())
                    .append("</h2>\n<ul class=\"where\" id=\"skipped\">\n");
            report.brokenLines().forEach(line -> html.append("<li>").append(escape(line)).append("</li>\n"));
            html.append("</ul>\n");
        }
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.2f%%", 100.0 * part / whole);
    }

    /**
     * Calls admitted or sent (green) and refused or rerouted (red) per second, each limit's rate dashed, one point
     * per bucket; {@code kind} "peer" or "carrier" names the chart's {@code data-} attribute.
     */
    private static void chart(StringBuilder html, String kind, String id, WhatIfReport.Timeline t, String okLabel,
                              String refusedLabel) {
        int n = t.admitted().size();
        double top = 1;
        for (int i = 0; i < n; i++) {
            top = Math.max(top, (t.admitted().get(i) + t.refused().get(i)) / (double) t.bucketSeconds());
        }
        for (double rate : t.limits().values()) {
            top = Math.max(top, rate);
        }
        top *= 1.1;
        double plotWidth = WIDTH - LEFT - RIGHT;
        double plotHeight = HEIGHT - TOP - BOTTOM;
        html.append("<h2>").append(kind).append(' ').append(escape(id)).append("</h2>\n<svg class=\"chart\" data-")
                .append(kind).append("=\"").append(escape(id))
                .append("\" xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
                .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT).append("\">\n");
        html.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.0f\" height=\"%.0f\" fill=\"#fafbfc\""
                + " stroke=\"#e3e5ea\"/>\n", LEFT, TOP, plotWidth, plotHeight));
        html.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">%.1f/s</text><text x=\"4\" y=\"%.0f\">0</text>\n",
                TOP + 10, top, TOP + plotHeight));
        html.append("<text x=\"").append(LEFT).append("\" y=\"").append(HEIGHT - 8).append("\">")
                .append(escape(t.start())).append(" · ").append(t.bucketSeconds()).append(" s per point</text>\n");
        // each limit's line is labelled at its right end, level with it (labels of lines close together pushed
        // apart, highest rate first)
        List<Map.Entry<String, Double>> limits = t.limits().entrySet().stream()
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed()).toList();
        double labelY = Double.NEGATIVE_INFINITY;
        for (Map.Entry<String, Double> limit : limits) {
            double y = TOP + plotHeight - limit.getValue() / top * plotHeight;
            labelY = Math.max(y + 4, labelY + 13);
            String label = kind.equals("carrier") ? "cps " + rate(limit.getValue())
                    : ReportText.limit(limit.getKey()) + ": " + rate(limit.getValue());
            html.append(String.format(Locale.ROOT, "<line class=\"limit\" x1=\"%d\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\""
                    + " stroke=\"#7a8194\" stroke-dasharray=\"4 3\"><title>%s</title></line>\n", LEFT,
                    LEFT + plotWidth, y, y, escape(label)));
            html.append(String.format(Locale.ROOT, "<text class=\"limit-label\" x=\"%.0f\" y=\"%.1f\">%s</text>\n",
                    LEFT + plotWidth + 6, labelY, escape(label)));
        }
        line(html, "admitted", "#3c8d5a", t.admitted(), t.bucketSeconds(), top, plotWidth, plotHeight);
        line(html, "refused", "#c0392b", t.refused(), t.bucketSeconds(), top, plotWidth, plotHeight);
        // the legend below the plot, right-aligned: the column right of it is the limits'
        html.append(String.format(Locale.ROOT, "<text class=\"legend\" x=\"%.0f\" y=\"%d\" text-anchor=\"end\">"
                + "<tspan style=\"fill:#3c8d5a\">― %s</tspan>   <tspan style=\"fill:#c0392b\">― %s</tspan></text>\n",
                LEFT + plotWidth, HEIGHT - 8, okLabel, refusedLabel));
        html.append("</svg>\n");
    }

    /** A rate as "15/s", "0.5/s", "0.08/s". */
    private static String rate(double perSecond) {
        return (perSecond >= 10 || perSecond == Math.rint(perSecond) ? String.format(Locale.ROOT, "%.0f", perSecond)
                : perSecond >= 1 ? String.format(Locale.ROOT, "%.1f", perSecond)
                : String.format(Locale.ROOT, "%.2f", perSecond)) + "/s";
    }

    private static void line(StringBuilder html, String series, String color, List<Long> counts, long bucketSeconds,
                             double top, double plotWidth, double plotHeight) {
        StringBuilder points = new StringBuilder();
        int n = counts.size();
        for (int i = 0; i < n; i++) {
            double x = LEFT + (n == 1 ? 0 : i * plotWidth / (n - 1));
            double y = TOP + plotHeight - counts.get(i) / (double) bucketSeconds / top * plotHeight;
            points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        }
        html.append("<polyline class=\"").append(series).append("\" fill=\"none\" stroke=\"").append(color)
                .append("\" points=\"").append(points.toString().trim()).append("\"/>\n");
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
