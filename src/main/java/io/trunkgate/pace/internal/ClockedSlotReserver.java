package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.ReplayPacing;
import io.trunkgate.pace.Reservation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;

/** pace.lua at given times: the carrier's clock key set, then the script, pipelined in order on one connection. */
public final class ClockedSlotReserver implements ReplayPacing {

    private final RedissonClient redis;
    private final RedisSlotReserver slots;

    public ClockedSlotReserver(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.slots = new RedisSlotReserver(redis, keyPrefix);
        RedisSlotReserver.PACE.load(redis);
    }

    @Override
    public List<Reservation> reserveAt(List<CarrierConfig> carriers, List<Long> micros) {
        RBatch batch = redis.createBatch(BatchOptions.defaults().executionMode(BatchOptions.ExecutionMode.IN_MEMORY));
        List<CompletionStage<List<Object>>> replies = new ArrayList<>(carriers.size());
        for (int i = 0; i < carriers.size(); i++) {
            CarrierConfig carrier = carriers.get(i);
            replies.add(RedisSlotReserver.PACE.runAtIn(batch, micros.get(i), List.of(slots.key(carrier.id())),
                    RedisSlotReserver.args(carrier, carrier.maxWait()).toArray()));
        }
        batch.execute();
        List<Reservation> reservations = new ArrayList<>(carriers.size());
        for (CompletionStage<List<Object>> reply : replies) {
            reservations.add(RedisSlotReserver.reservation(reply.toCompletableFuture().join()));
        }
        return reservations;
    }
}
