package io.trunkgate.warmup;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.SipUri;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.pace.SlotReserver;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the admission and pacing scripts a number of times before the SIP listeners open, on a peer and a
 * carrier of its own whose keys expire within milliseconds. The first calls of a fresh JVM load classes,
 * open connections and load the scripts into Redis; without this, they would take longer than the Redis
 * timeout and the first real calls would be decided by the redis-down policy.
 */
public final class RedisWarmUp {

    private static final Logger log = LoggerFactory.getLogger(RedisWarmUp.class);
    private static final int ROUNDS = 200;

    private RedisWarmUp() {
    }

    public static void run(String instanceId, AdmissionLimiter limiter, SlotReserver reserver, Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        Scope peer = Scope.peer("~warm-up-" + instanceId, List.of(Limit.exact(Duration.ofMillis(1), 1_000_000)));
        CarrierConfig carrier = new CarrierConfig("~warm-up-" + instanceId, SipUri.parse("sip:warm-up.invalid"),
                1_000_000, 1, Duration.ZERO, Set.of(), false, List.of(), 1, Duration.ofSeconds(1),
                Duration.ofSeconds(1));
        long started = System.nanoTime();
        try {
            for (int i = 0; i < ROUNDS; i++) {
                limiter.admit(AdmissionRequest.of("warm-up-" + i, peer)).toCompletableFuture()
                        .get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                reserver.reserve(carrier, Duration.ZERO).toCompletableFuture()
                        .get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            log.info("redis warm-up: {} admissions and reservations in {} ms", ROUNDS,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("redis warm-up incomplete ({}): the first calls may be decided by the redis-down policy",
                    e.toString());
        }
    }
}
