package io.trunkgate.config;

import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One key of a {@link ConfigSection} (or one element of a list), converted on demand. Every converter
 * returns empty when the key is absent or its value is invalid; an invalid value is reported, with the
 * file, line and key, before returning.
 */
final class Field {

    static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]+");
    private static final String ID_RULE = "must contain only letters, digits, '.', '_' and '-'";
    private static final Pattern DECIMAL = Pattern.compile("[+-]?[0-9]+(\\.[0-9]+)?");
    private static final String DURATION_HINT = "(use e.g. 500ms, 1s, 1m, 1d)";

    private final ConfigSection section;
    private final String key;
    private final Optional<ConfigValue> value;
    private final Location whereAbsent;

    Field(ConfigSection section, String key, Optional<ConfigValue> value, Location whereAbsent) {
        this.section = section;
        this.key = key;
        this.value = value;
        this.whereAbsent = whereAbsent;
    }

    boolean isPresent() {
        return value.isPresent();
    }

    Location at() {
        return value.map(v -> section.locate(v, key)).orElse(whereAbsent);
    }

    /** The value as the file has it, for messages: "1m", 10, a list. */
    String written() {
        return value.map(Field::describe).orElse("nothing");
    }

    void error(String message) {
        section.report(at().error(message));
    }

    /** A string; numbers and booleans are taken as written (so a prefix 0044 keeps its zeros). */
    Optional<String> string() {
        return typed("a string", Field::asText,
                ConfigValueType.STRING, ConfigValueType.NUMBER, ConfigValueType.BOOLEAN);
    }

    Optional<String> string(Predicate<String> ok, String rule) {
        return check(string(), ok, rule);
    }

    Optional<String> nonEmptyString() {
        return string(s -> !s.isBlank(), "must not be empty");
    }

    /** true or false, unquoted. */
    Optional<Boolean> bool() {
        return typed("true or false", v -> (Boolean) v.unwrapped(), ConfigValueType.BOOLEAN);
    }

    /** The id of a peer, group or carrier, or a reference to one. */
    Optional<String> id() {
        return string(ID.asMatchPredicate(), ID_RULE);
    }

    /** A string turned into a value by {@code parser}, whose IllegalArgumentException is the error. */
    <T> Optional<T> parsed(Function<String, T> parser) {
        return string().flatMap(text -> {
            try {
                return Optional.of(parser.apply(text));
            } catch (IllegalArgumentException e) {
                error(e.getMessage());
                return Optional.empty();
            }
        });
    }

    Optional<Long> whole(Predicate<Long> ok, String rule) {
        return check(typed("a whole number", this::toWhole, ConfigValueType.NUMBER, ConfigValueType.STRING)
                .flatMap(Function.identity()), ok, rule);
    }

    Optional<Long> whole(long min, long max) {
        String rule = max == Long.MAX_VALUE || max == Integer.MAX_VALUE
                ? "must be at least " + min : "must be between " + min + " and " + max;
        return whole(n -> n >= min && n <= max, rule);
    }

    Optional<Integer> integer(int min, int max) {
        return whole(min, max).map(Long::intValue);
    }

    Optional<Double> number(Predicate<Double> ok, String rule) {
        return check(typed("a number", this::toNumber, ConfigValueType.NUMBER, ConfigValueType.STRING)
                .flatMap(Function.identity()), ok, rule);
    }

    /** A duration with a unit, at least {@code min}. A bare number is refused: "window = 1" is too easy to misread. */
    Optional<Duration> duration(Duration min) {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        ConfigValue v = value.get();
        if (v.valueType() == ConfigValueType.NUMBER) {
            error("duration " + asText(v) + " needs a unit " + DURATION_HINT);
            return Optional.empty();
        }
        if (v.valueType() != ConfigValueType.STRING) {
            return wrongType("a duration");
        }
        String text = (String) v.unwrapped();
        Duration duration;
        try {
            duration = v.atKey("v").getDuration("v");
        } catch (com.typesafe.config.ConfigException e) {
            error("bad duration \"" + text + "\" " + DURATION_HINT);
            return Optional.empty();
        }
        if (duration.compareTo(min) < 0) {
            error((min.isZero() ? "must not be negative" : "must be at least " + min.toMillis() + "ms")
                    + " (got \"" + text + "\")");
            return Optional.empty();
        }
        return Optional.of(duration);
    }

    /** A duration with a unit, from {@code min} to {@code max}. */
    Optional<Duration> duration(Duration min, Duration max) {
        String text = value.map(v -> String.valueOf(v.unwrapped())).orElse("");
        Optional<Duration> duration = duration(min);
        if (duration.isPresent() && duration.get().compareTo(max) > 0) {
            error("must be at most " + max.toMillis() + "ms (got \"" + text + "\")");
            return Optional.empty();
        }
        return duration;
    }

    /** One of the constants of {@code type}, written in any case: "embedded", "UDP". */
    <E extends Enum<E>> Optional<E> choice(Class<E> type) {
        E[] constants = type.getEnumConstants();
        String names = Arrays.stream(constants).map(c -> c.name().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
        return string().flatMap(text -> {
            Optional<E> match = Arrays.stream(constants).filter(c -> c.name().equalsIgnoreCase(text.trim())).findFirst();
            if (match.isEmpty()) {
                error("must be one of " + names + " (got \"" + text + "\")");
            }
            return match;
        });
    }

    /** A path, relative to {@code baseDir} (gateway.conf's directory), naming a file the gateway can read. */
    Optional<Path> readableFile(Path baseDir) {
        Optional<Path> path = nonEmptyString().map(baseDir::resolve);
        if (path.isPresent() && !Files.isRegularFile(path.get())) {
            error("no such file: " + path.get());
            return Optional.empty();
        }
        if (path.isPresent() && !Files.isReadable(path.get())) {
            error("cannot read " + path.get() + " (permissions?)");
            return Optional.empty();
        }
        return path;
    }

    /** The elements of a list, each a field of its own named key[index]. */
    Optional<List<Field>> elements() {
        return typed("a list", v -> {
            List<Field> fields = new ArrayList<>();
            ConfigList list = (ConfigList) v;
            for (int i = 0; i < list.size(); i++) {
                String elementKey = key + "[" + i + "]";
                fields.add(new Field(section, elementKey, Optional.of(list.get(i)), section.locate(list.get(i), elementKey)));
            }
            return fields;
        }, ConfigValueType.LIST);
    }

    /** An object, read as a section of its own whose unknown keys are reported with its parent's. */
    Optional<ConfigSection> object() {
        return typed("an object", v -> section.child((ConfigObject) v, key), ConfigValueType.OBJECT);
    }

    private <T> Optional<T> typed(String expected, Function<ConfigValue, T> convert, ConfigValueType... accepted) {
        if (value.isEmpty()) {
            return Optional.empty();
        }
        if (!Arrays.asList(accepted).contains(value.get().valueType())) {
            return wrongType(expected);
        }
        return Optional.of(convert.apply(value.get()));
    }

    private <T> Optional<T> wrongType(String expected) {
        error("expected " + expected + ", got " + describe(value.orElseThrow()));
        return Optional.empty();
    }

    private <T> Optional<T> check(Optional<T> candidate, Predicate<T> ok, String rule) {
        if (candidate.isPresent() && !ok.test(candidate.get())) {
            T bad = candidate.get();
            error(rule + " (got " + shown(bad) + ")");
            return Optional.empty();
        }
        return candidate;
    }

    /** A value as the operator wrote it: strings quoted, numbers without a trailing ".0". */
    private static String shown(Object value) {
        if (value instanceof String) {
            return "\"" + value + "\"";
        }
        if (value instanceof Double d && Double.isFinite(d)) {
            return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
        }
        return String.valueOf(value);
    }

    private Optional<Long> toWhole(ConfigValue v) {
        String text = asText(v).trim();
        try {
            return Optional.of(Long.parseLong(text));
        } catch (NumberFormatException e) {
            error("expected a whole number, got " + describe(v));
            return Optional.empty();
        }
    }

    private Optional<Double> toNumber(ConfigValue v) {
        if (v.valueType() == ConfigValueType.NUMBER) {
            return Optional.of(((Number) v.unwrapped()).doubleValue());
        }
        String text = ((String) v.unwrapped()).trim();
        if (!DECIMAL.matcher(text).matches()) {
            error("expected a number, got " + describe(v));
            return Optional.empty();
        }
        return Optional.of(Double.parseDouble(text));
    }

    /** A scalar as text; a number keeps the digits as written, which unwrapped() would not (0044). */
    private static String asText(ConfigValue v) {
        return v.atKey("v").getString("v");
    }

    private static String describe(ConfigValue v) {
        return switch (v.valueType()) {
            case OBJECT -> "an object";
            case LIST -> "a list";
            case NULL -> "null";
            case STRING -> "\"" + v.unwrapped() + "\"";
            case NUMBER, BOOLEAN -> asText(v);
        };
    }
}
