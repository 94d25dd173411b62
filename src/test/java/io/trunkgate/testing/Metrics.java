package io.trunkgate.testing;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads samples out of a Prometheus text exposition. */
public final class Metrics {

    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? (\\S+)$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    private Metrics() {
    }

    /** The value of the sample {@code name} whose labels include all of {@code labels}, if there is one. */
    public static OptionalDouble value(String exposition, String name, Map<String, String> labels) {
        for (String line : exposition.split("\n")) {
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches() || !m.group(1).equals(name)) {
                continue;
            }
            Map<String, String> found = new java.util.HashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                while (l.find()) {
                    found.put(l.group(1), l.group(2));
                }
            }
            if (found.entrySet().containsAll(labels.entrySet())) {
                return OptionalDouble.of(Double.parseDouble(m.group(3)));
            }
        }
        return OptionalDouble.empty();
    }
}
