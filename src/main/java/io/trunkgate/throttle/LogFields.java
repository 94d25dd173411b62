package io.trunkgate.throttle;

/**
 * A value from the wire (a Call-ID) in a {@code key=value} log line, such as the call log's: written as it is
 * when it cannot pass for anything else, else in double quotes with {@code "} and {@code \} escaped and control
 * and line-separator characters as {@code \}{@code uXXXX}, so one line stays one line with one field per key.
 */
public final class LogFields {

    private LogFields() {
    }

    public static String value(String raw) {
        if (raw == null || raw.isEmpty()) {
            return "\"\"";
        }
        if (raw.chars().allMatch(LogFields::plain)) {
            return raw;
        }
        StringBuilder quoted = new StringBuilder(raw.length() + 8).append('"');
        raw.chars().forEach(c -> {
            if (c == '"' || c == '\\') {
                quoted.append('\\').append((char) c);
            } else if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
                quoted.append(String.format("\\u%04x", c));
            } else {
                quoted.append((char) c);
            }
        });
        return quoted.append('"').toString();
    }

    private static boolean plain(int c) {
        return c > ' ' && c < 0x7f && c != '"' && c != '=' && c != '\\';
    }
}
