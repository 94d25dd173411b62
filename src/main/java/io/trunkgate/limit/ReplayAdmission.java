package io.trunkgate.limit;

import io.trunkgate.limit.internal.ClockedAdmission;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * Admission through the gateway's own script (lua/admit.lua) on a scratch Redis, at times the caller gives instead
 * of Redis's clock: for replaying recorded calls ({@code trunkgate what-if}). max-concurrent caps are not checked
 * (their lease scripts read Redis's clock only).
 */
public interface ReplayAdmission {

    /**
     * Admits or refuses each request, in order, as if it arrived at its time (microseconds since the epoch, one per
     * request), in one pipelined round trip.
     */
    List<AdmissionDecision> admitAt(List<AdmissionRequest> requests, List<Long> micros);

    /**
     * Replays on {@code redis}, which must be a server of its own: the script's clock is set there (the key
     * {@code <prefix>:{<tag>}:test-clock}, lua/README.md), which a gateway's Redis must never hold.
     */
    static ReplayAdmission on(RedissonClient redis, String keyPrefix) {
        return new ClockedAdmission(redis, keyPrefix);
    }
}
