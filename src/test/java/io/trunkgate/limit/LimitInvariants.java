package io.trunkgate.limit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import java.util.List;

/** The invariant every window must keep, checked from the times of admitted calls. */
public final class LimitInvariants {

    private LimitInvariants() {
    }

    /** For every admitted call, the call {@code max} places later must fall outside its window. */
    public static void assertNoWindowOverMax(List<Long> sortedMicros, Limit limit) {
        long windowMicros = limit.window().toNanos() / 1000;
        int max = (int) limit.max();
        for (int i = 0; i + max < sortedMicros.size(); i++) {
            long span = sortedMicros.get(i + max) - sortedMicros.get(i);
            assertTrue(span > windowMicros, limit + ": " + (max + 1) + " calls within " + span + "us (window "
                    + windowMicros + "us) starting at index " + i);
        }
    }
}
