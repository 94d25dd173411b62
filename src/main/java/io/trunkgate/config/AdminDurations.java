package io.trunkgate.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The durations the admin API takes (blocks, carrier holds): {@code 500ms}, {@code 30s}, {@code 10m}, {@code 2h},
 * {@code 1d}, decimals allowed, from 1 ms to 365 days. The command line checks them by the same rule before it
 * sends them.
 */
public final class AdminDurations {

    /** The longest duration: anything longer is taken for a typo. */
    public static final Duration MAX = Duration.ofDays(365);
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h|d)");

    private AdminDurations() {
    }

    /** The duration {@code text} says; IllegalArgumentException, with a message for people, when it says none. */
    public static Duration parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a duration is required (e.g. 500ms, 30s, 10m, 2h, 1d)");
        }
        Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("bad duration \"" + text + "\" (use e.g. 500ms, 30s, 10m, 2h, 1d)");
        }
        double unitMillis = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            case "m" -> 60_000;
            case "h" -> 3_600_000;
            default -> 86_400_000;
        };
        long millis = Math.round(Double.parseDouble(m.group(1)) * unitMillis);
        if (millis < 1) {
            throw new IllegalArgumentException("a duration is at least 1ms: " + text);
        }
        if (millis > MAX.toMillis()) {
            throw new IllegalArgumentException("a duration is at most " + MAX.toDays() + "d: " + text);
        }
        return Duration.ofMillis(millis);
    }
}
