package io.trunkgate.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The {@code limits} list of a peer or group file. */
final class LimitsReader {

    private static final Duration ONE_MILLI = Duration.ofMillis(1);

    private LimitsReader() {
    }

    /** The file's {@code mode} (enforce when absent): the mode of its limits that set none, and of its max-concurrent. */
    static LimitMode mode(ConfigSection file) {
        return file.optional("mode").choice(LimitMode.class).orElse(LimitMode.ENFORCE);
    }

    /** The limits, each in its own {@code mode}, else in {@code fileMode}. */
    static List<Limit> read(ConfigSection file, LimitMode fileMode) {
        List<Limit> limits = new ArrayList<>();
        for (Field element : ConfigBounds.atMost(file.optional("limits"), ConfigBounds.MAX_LIMITS, "limits")) {
            element.object().flatMap(item -> {
                LimitMode mode = item.optional("mode").choice(LimitMode.class).orElse(fileMode);
                return limit(item).map(limit -> limit.in(mode));
            }).ifPresent(limits::add);
        }
        return limits;
    }

    /**
     * Reports on the file's {@code limits} key when they, weighed in one decision with {@code others} (the limits of
     * the peer's group, named {@code othersName}; none for a group's own file), exceed what one decision may cost.
     */
    static void checkDecisionBound(ConfigSection file, List<Limit> limits, List<Limit> others, String othersName) {
        List<Limit> weighed = new ArrayList<>(limits);
        weighed.addAll(others);
        Limit.overDecisionBound(weighed).ifPresent(reason -> file.optional("limits").error(
                (others.isEmpty() ? "" : "with the " + others.size() + " limits of " + othersName + ": ") + reason));
    }

    private static Optional<Limit> limit(ConfigSection item) {
        Field windowField = item.required("window");
        Optional<Duration> window = windowField.duration(ONE_MILLI);
        Optional<Long> max = item.required("max").whole(1, Long.MAX_VALUE);
        Field precisionField = item.optional("precision");
        Optional<Duration> precision = precisionField.duration(ONE_MILLI);
        if (window.isPresent() && !Limit.wholeMillis(window.get())) {
            windowField.error("window " + windowField.written() + " is not a whole number of milliseconds"
                    + " (windows are counted in ms: use e.g. 1ms or 2ms)");
            return Optional.empty();
        }
        if (precision.isPresent() && !Limit.wholeMillis(precision.get())) {
            precisionField.error("precision " + precisionField.written() + " is not a whole number of milliseconds"
                    + " (use e.g. 1ms or 2ms)");
            return Optional.empty();
        }
        if (window.isEmpty() || max.isEmpty()) {
            return Optional.empty();
        }
        if (precision.isPresent() && precision.get().compareTo(window.get()) > 0) {
            precisionField.error("precision " + precisionField.written() + " is longer than the window "
                    + windowField.written());
            return Optional.empty();
        }
        if (precision.isPresent() && Limit.buckets(window.get(), precision.get()) > Limit.MAX_BUCKETS) {
            precisionField.error("precision " + precisionField.written() + " gives "
                    + Limit.buckets(window.get(), precision.get()) + " buckets per window of "
                    + windowField.written() + ", more than " + Limit.MAX_BUCKETS + " (every admission must do a"
                    + " bounded amount of Redis work): the smallest precision allowed for this window is "
                    + Limit.smallestPrecision(window.get()).toMillis() + "ms");
            return Optional.empty();
        }
        return Optional.of(precision.map(p -> Limit.bucketed(window.get(), max.get(), p))
                .orElseGet(() -> Limit.exact(window.get(), max.get())));
    }
}
