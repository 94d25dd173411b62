package io.trunkgate.auth.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Uses recorded in this gateway's memory, each until it lapses, at most {@code capacity} at once: while full, a new
 * pair is refused as a replay would be (the gateway errs on refusing, never on letting a replay through).
 */
public final class LocalNonceUses implements NonceUses {

    private final Clock clock;
    private final int capacity;
    /** Until when each pair is kept, in milliseconds, in the order recorded (about the order they lapse in). */
    private final LinkedHashMap<String, Long> until = new LinkedHashMap<>();

    public LocalNonceUses(Clock clock, int capacity) {
        this.clock = clock;
        this.capacity = capacity;
    }

    @Override
    public synchronized CompletionStage<Boolean> firstUse(String nonce, String nonceCount, Duration keep) {
        long now = clock.millis();
        for (Iterator<Map.Entry<String, Long>> oldest = until.entrySet().iterator();
             oldest.hasNext() && oldest.next().getValue() <= now; ) {
            oldest.remove();
        }
        String pair = nonce + ":" + nonceCount;
        Long kept = until.get(pair);
        if (kept != null && kept > now) {
            return CompletableFuture.completedFuture(false);
        }
        if (kept == null && until.size() >= capacity) {
            return CompletableFuture.completedFuture(false);
        }
        until.remove(pair);
        until.put(pair, now + keep.toMillis());
        return CompletableFuture.completedFuture(true);
    }
}
