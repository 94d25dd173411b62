package io.trunkgate.pace;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.internal.ClockedSlotReserver;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * Carrier slots reserved through the gateway's own script (lua/pace.lua) on a scratch Redis, at times the caller
 * gives instead of Redis's clock: for replaying recorded calls ({@code trunkgate what-if}).
 */
public interface ReplayPacing {

    /**
     * Reserves, in order, a slot of each carrier (within its max-wait) as if asked at its time (microseconds since
     * the epoch, one per carrier), in one pipelined round trip.
     */
    List<Reservation> reserveAt(List<CarrierConfig> carriers, List<Long> micros);

    /** Replays on {@code redis}, a server of its own (see {@code ReplayAdmission.on}). */
    static ReplayPacing on(RedissonClient redis, String keyPrefix) {
        return new ClockedSlotReserver(redis, keyPrefix);
    }
}
