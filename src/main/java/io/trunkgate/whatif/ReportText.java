package io.trunkgate.whatif;

import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** The report's figures as a reader reads them: limits as "15 per 1 s", delays as "12 / 30 / 38 / 40" (ms). */
public final class ReportText {

    /** A limit as labels name it (Limit's toString): max/window ms, "@" precision ms. */
    private static final Pattern LIMIT = Pattern.compile("\\b(\\d+)/(\\d+)ms(?:@(\\d+)ms)?");

    private ReportText() {
    }

    /** {@code label} ("peer:a 15/1000ms", "group:g 60/10000ms@1000ms") with its limit readable. */
    public static String limit(String label) {
        Matcher m = LIMIT.matcher(label);
        StringBuilder text = new StringBuilder();
        while (m.find()) {
            String readable = m.group(1) + " per " + duration(Duration.ofMillis(Long.parseLong(m.group(2))))
                    + (m.group(3) == null ? "" : " (" + duration(Duration.ofMillis(Long.parseLong(m.group(3))))
                    + " steps)");
            m.appendReplacement(text, Matcher.quoteReplacement(readable));
        }
        return m.appendTail(text).toString();
    }

    /** "500 ms", "1 s", "1.5 s", "10 min", "1 h": the largest unit the duration is a whole or half of. */
    public static String duration(Duration d) {
        long ms = d.toMillis();
        long[] units = {3_600_000, 60_000, 1000};
        String[] names = {"h", "min", "s"};
        for (int i = 0; i < units.length; i++) {
            if (ms >= units[i] && (ms * 2) % units[i] == 0) {
                return (ms % units[i] == 0 ? Long.toString(ms / units[i]) : (ms / units[i]) + ".5") + " " + names[i];
            }
        }
        return ms + " ms";
    }

    /** The heading of {@link #delays}' column. */
    public static final String DELAYS = "delay ms p50/p95/p99/max";

    /** Percentiles of delays ({"p50": 12, ..., "max": 40}, in ms) as "12 / 30 / 38 / 40"; "-" for none. */
    public static String delays(Map<String, Long> percentiles) {
        if (percentiles.isEmpty()) {
            return "-";
        }
        return percentiles.values().stream().map(String::valueOf).collect(Collectors.joining(" / "));
    }
}
