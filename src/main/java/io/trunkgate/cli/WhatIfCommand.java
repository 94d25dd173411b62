package io.trunkgate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.whatif.HtmlReport;
import io.trunkgate.whatif.ReportText;
import io.trunkgate.whatif.WhatIf;
import io.trunkgate.whatif.WhatIfReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Replays call records through a configuration (the gateway's admission, lease and pacing scripts on a scratch
 * redis-server) and prints, per peer, carrier and cap, what would have been admitted, refused and moved on beside
 * what the records say happened. A
 * configuration with errors is refused as check-config refuses it (exit 1).
 */
@Command(name = "what-if", mixinStandardHelpOptions = true,
        description = "Replay call records through a configuration's limits, caps and carriers; compare with what "
                + "happened.")
final class WhatIfCommand implements Callable<Integer> {

    @Option(names = "--records", required = true, arity = "1..*", description = "call record files (JSON lines)")
    List<Path> records;

    @Option(names = "--config", required = true, description = "the configuration's directory (its gateway.conf)")
    Path config;

    @Option(names = "--from", description = "replay calls that arrived at or after this time (ISO 8601, UTC)")
    Instant from;

    @Option(names = "--to", description = "replay calls that arrived before this time (ISO 8601, UTC)")
    Instant to;

    @Option(names = "--json", description = "print the report as JSON")
    boolean json;

    @Option(names = "--html", description = "also write the report, with a chart per peer, to this HTML file")
    Path html;

    @Override
    public Integer call() throws IOException {
        Path gatewayConf = Files.isDirectory(config) ? config.resolve("gateway.conf") : config;
        GatewayConfig loaded;
        try {
            loaded = ConfigLoader.load(gatewayConf);
        } catch (ConfigException e) {
            for (ConfigError error : e.errors()) {
                System.err.println(error);
            }
            System.err.printf("%s: %d error(s)%n", gatewayConf, e.errors().size());
            return 1;
        }
        for (Path file : records) {
            if (!Files.isReadable(file)) {
                System.err.println(file + ": cannot read it");
                return 1;
            }
        }
        // The report is the output (JSON with --json): the scratch redis-server's start and stop are no news.
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level level = root.getLevel();
        root.setLevel(Level.WARN);
        try {
            WhatIfReport report = WhatIf.replay(loaded, records, Optional.ofNullable(from), Optional.ofNullable(to));
            if (html != null) {
                Files.writeString(html, HtmlReport.of(report));
            }
            System.out.println(json ? report.json() : table(report));
            return 0;
        } finally {
            root.setLevel(level);
        }
    }

    static String table(WhatIfReport report) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"peer", "offered", "admitted", "refused", "recorded admitted", "recorded refused",
                "same decision"});
        report.peers().forEach((id, p) -> rows.add(new String[] {id, Long.toString(p.offered()),
                Long.toString(p.admitted()), Long.toString(p.refusedBy().values().stream().mapToLong(n -> n).sum()),
                Long.toString(p.recordedAdmitted()), Long.toString(p.recordedRefused()),
                p.sameDecision() + " (" + percent(p.sameDecision(), p.offered()) + ")"}));
        StringBuilder text = new StringBuilder(Table.of(rows)).append('\n');
        report.peers().forEach((id, p) -> {
            p.refusedBy().forEach((limit, n) -> text.append(id + ": refused by " + ReportText.limit(limit) + ": " + n
                    + "\n"));
            p.wouldRefuse().forEach((limit, n) -> text.append(id + ": would refuse (shadow) " + ReportText.limit(limit)
                    + ": " + n + "\n"));
        });
        if (!report.carriers().isEmpty()) {
            List<String[]> carriers = new ArrayList<>();
            carriers.add(new String[] {"carrier", "sent", "over max-wait", "at capacity", "failed over",
                    "no carrier left", ReportText.DELAYS, "recorded sent", "recorded over max-wait", "recorded at capacity",
                    "recorded failed over", "recorded " + ReportText.DELAYS});
            report.carriers().forEach((id, c) -> carriers.add(new String[] {id, Long.toString(c.sent()),
                    Long.toString(c.overMaxWait()), Long.toString(c.atCapacity()), Long.toString(c.failedOver()),
                    Long.toString(c.noCarrierLeft()), ReportText.delays(c.delayMs()), Long.toString(c.recordedSent()),
                    Long.toString(c.recordedOverMaxWait()), Long.toString(c.recordedAtCapacity()),
                    Long.toString(c.recordedFailedOver()), ReportText.delays(c.recordedDelayMs())}));
            text.append(Table.of(carriers)).append('\n');
        }
        if (!report.caps().isEmpty()) {
            List<String[]> caps = new ArrayList<>();
            caps.add(new String[] {"cap", "max", "over", "recorded over"});
            report.caps().forEach((label, c) -> caps.add(new String[] {label,
                    c.max() == 0 ? "-" : c.max() + (c.shadow() ? " (shadow)" : ""), Long.toString(c.over()),
                    Long.toString(c.recordedOver())}));
            text.append(Table.of(caps)).append('\n');
        }
        text.append("same decision as recorded: " + report.sameDecisions() + " of " + report.replayed() + " ("
                + percent(report.sameDecisions(), report.replayed()) + ")\n");
        report.differencesBy().forEach((why, n) -> text.append("differs: " + n + " (" + why + ")\n"));
        report.differences().forEach(d -> text.append("  " + d + "\n"));
        report.notReplayed().forEach((why, n) -> text.append("not replayed: " + n + " (" + why + ")\n"));
        if (report.brokenCount() > 0) {
            text.append("lines skipped, not call records: " + report.brokenCount() + "\n");
            report.brokenLines().forEach(line -> text.append("  " + line + "\n"));
        }
        return text.toString().stripTrailing();
    }

    private static String percent(long part, long whole) {
        return whole == 0 ? "-" : String.format(Locale.ROOT, "%.2f%%", 100.0 * part / whole);
    }
}
