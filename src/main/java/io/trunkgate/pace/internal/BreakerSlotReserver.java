package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.PacerUnavailableException;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A slot reserver whose calls are bounded by the Redis timeout and circuit breaker. A slot that Redis reserved
 * after the timeout was never used (the call went by the Redis-down policy), so it is given back.
 */
public final class BreakerSlotReserver implements SlotReserver {

    private final SlotReserver redis;
    private final RedisBreaker breaker;

    public BreakerSlotReserver(SlotReserver redis, RedisBreaker breaker) {
        this.redis = redis;
        this.breaker = breaker;
    }

    @Override
    public CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
        return breaker.call(() -> redis.reserve(carrier, maxWait), (message, cause) ->
                new PacerUnavailableException("pacing for carrier " + carrier.id() + " unavailable: " + message, cause),
                late -> {
                    if (late.reserved()) {
                        redis.giveBack(carrier, late);
                    }
                });
    }

    @Override
    public CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
        return breaker.call(() -> redis.giveBack(carrier, reservation), (message, cause) ->
                new PacerUnavailableException("give-back for carrier " + carrier.id() + " unavailable: " + message, cause));
    }
}
