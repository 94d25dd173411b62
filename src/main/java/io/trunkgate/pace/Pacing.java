package io.trunkgate.pace;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.pace.internal.FallbackPacing;
import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.redisson.api.RedissonClient;

/**
 * The pacing port: calls held until their carrier's slot, reserved fleet-wide in Redis while it answers in
 * time, else by the Redis-down policy ({@code local}: this instance's share of each carrier's rate, in memory).
 * It alone owns that fallback.
 */
public interface Pacing extends AutoCloseable {

    CarrierPacer pacer();

    /** How long a call arriving now would wait for the carrier's slot, fleet-wide; reserves nothing. */
    CompletionStage<Duration> nextSlotWait(CarrierConfig carrier);

    /** The carrier's next slot, to reserve with a call's admission (same Redis node only). */
    SlotRequest slotRequest(CarrierConfig carrier);

    /** The fleet-wide slot ledger itself, without timeout, breaker or fallback (warm-up). */
    SlotReserver fleetWide();

    /** Calls still held complete as cancelled. */
    @Override
    void close();

    /**
     * Pacing in Redis under {@code breaker}, with the in-memory fallback for a fleet of {@code fleetSize}.
     *
     * @param policy      the Redis-down policy, read at each reservation (it changes on reload)
     * @param clockMicros the fallback's clock (wall time in microseconds)
     * @param instrument  wraps the fleet-wide ledger before the breaker (metrics time it)
     * @param timer       one thread, which releases held calls at their slots
     */
    static Pacing of(RedissonClient redis, String keyPrefix, RedisBreaker breaker, int fleetSize,
                     Supplier<RedisDownPolicy> policy, LongSupplier clockMicros,
                     UnaryOperator<SlotReserver> instrument, ScheduledExecutorService timer) {
        return new FallbackPacing(redis, keyPrefix, breaker, fleetSize, policy, clockMicros, instrument, timer);
    }
}
