package io.trunkgate.config;

import java.time.Duration;
import java.util.Optional;

/**
 * The calls a starting gateway places through its own listener before it takes traffic (sip.warm-up.*).
 *
 * @param calls         how many at least; 0 = no warm-up
 * @param maxTime       the longest the warm-up may take, however many calls are left; empty: the warm-up's
 *                      default, which depends on whether the JVM starts from a start cache (docs/warm-up.md)
 * @param untilCompiled after {@code calls}, go on while the JIT compiler is busy (the configuration file always
 *                      asks for it; tests that count the calls do not)
 */
public record WarmUpSettings(int calls, Optional<Duration> maxTime, boolean untilCompiled) {

    public static final WarmUpSettings OFF = new WarmUpSettings(0, Duration.ZERO, false);

    public WarmUpSettings(int calls, Duration maxTime, boolean untilCompiled) {
        this(calls, Optional.of(maxTime), untilCompiled);
    }
}
