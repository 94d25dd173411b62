package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Carrier slots under the Redis-down policy: the fleet-wide ledger while Redis answers; otherwise
 * {@code local} paces at this instance's share of the rate, {@code allow} sends at once, and
 * {@code reject} fails the attempt (the call is then rejected when no carrier is left).
 */
public final class FallbackSlotReserver implements SlotReserver {

    private final SlotReserver redis;
    private final SlotReserver local;
    private final Supplier<RedisDownPolicy> policy;

    public FallbackSlotReserver(SlotReserver redis, SlotReserver local, Supplier<RedisDownPolicy> policy) {
        this.redis = redis;
        this.local = local;
        this.policy = policy;
    }

    @Override
    public CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
        return redis.reserve(carrier, maxWait).handle((reservation, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(reservation);
            }
            return switch (policy.get()) {
                case LOCAL -> local.reserve(carrier, maxWait);
                case ALLOW -> CompletableFuture.completedFuture(new Reservation(true, Duration.ZERO, 0, 0,
                        Reservation.Clock.LOCAL));
                case REJECT -> CompletableFuture.<Reservation>failedFuture(
                        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            };
        }).thenCompose(stage -> stage);
    }

    /** To the ledger that made the reservation; {@code allow}'s reservations took no slot. */
    @Override
    public CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
        return reservation.clock() == Reservation.Clock.REDIS ? redis.giveBack(carrier, reservation)
                : local.giveBack(carrier, reservation);
    }
}
