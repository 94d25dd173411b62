package io.trunkgate.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.trunkgate.config.WarmUpSettings;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How long the warm-up may take: sip.warm-up.max-time, else by whether the JVM started from a start cache. */
class WarmUpMaxTimeTest {

    @Test
    void aConfiguredMaxTimeHoldsWithOrWithoutAStartCache() {
        WarmUpSettings settings = new WarmUpSettings(3000, Duration.ofSeconds(12), true);
        assertEquals(Duration.ofSeconds(12), WarmUp.maxTime(settings, false));
        assertEquals(Duration.ofSeconds(12), WarmUp.maxTime(settings, true));
    }

    @Test
    void unsetItIsHalfAMinuteOrSevenSecondsFromAStartCache() {
        WarmUpSettings settings = new WarmUpSettings(3000, Optional.empty(), true);
        assertEquals(Duration.ofSeconds(30), WarmUp.maxTime(settings, false));
        assertEquals(Duration.ofSeconds(7), WarmUp.maxTime(settings, true));
    }

    @Test
    void aJvmStartedWithoutAnAotCacheIsNotFromAStartCache() {
        // the tests' JVM has no -XX:AOTCache; before Java 24 the option does not exist at all
        assertFalse(StartCache.inUse());
    }
}
