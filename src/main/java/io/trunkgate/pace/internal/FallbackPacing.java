package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.Pacing;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.redisson.api.RedissonClient;

/** The pacer on the fleet-wide ledger (behind its breaker), falling back as {@link FallbackSlotReserver} says. */
public final class FallbackPacing implements Pacing {

    private final RedisSlotReserver redis;
    private final CarrierPacer pacer;
    private final SlotReserver guarded;

    public FallbackPacing(RedissonClient client, String keyPrefix, RedisBreaker breaker, int fleetSize,
                          Supplier<RedisDownPolicy> policy, LongSupplier clockMicros,
                          UnaryOperator<SlotReserver> instrument, ScheduledExecutorService timer) {
        this.redis = new RedisSlotReserver(client, keyPrefix);
        this.guarded = new BreakerSlotReserver(instrument.apply(redis), breaker);
        this.pacer = new TimerCarrierPacer(new FallbackSlotReserver(guarded,
                new LocalSlotReserver(fleetSize, clockMicros), policy), timer);
    }

    @Override
    public CarrierPacer pacer() {
        return pacer;
    }

    @Override
    public CompletionStage<Duration> nextSlotWait(CarrierConfig carrier) {
        return redis.nextSlotWait(carrier);
    }

    @Override
    public SlotRequest slotRequest(CarrierConfig carrier) {
        return redis.request(carrier, guarded);
    }

    @Override
    public SlotReserver fleetWide() {
        return redis;
    }

    @Override
    public void close() {
        pacer.close();
    }
}
