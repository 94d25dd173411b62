package io.trunkgate.limit;

import io.trunkgate.limit.internal.ClockedAdmission;
import java.util.List;
import org.redisson.api.RedissonClient;

/**
 * Admission through the gateway's own scripts on a scratch Redis, at times the caller gives instead of Redis's
 * clock: for replaying recorded calls ({@code trunkgate what-if}). A scope's max-concurrent cap is checked, and its
 * lease taken, by lua/admit.lua as in production; a carrier's by lua/take-lease.lua. A replayed lease is taken for
 * as long as its call holds it (the replay knows when each call ended), so it lapses then, as a live lease is
 * released when its call ends: no renewal and no release run.
 */
public interface ReplayAdmission {

    /**
     * Admits or refuses each request, in order, as if it arrived at its time (microseconds since the epoch, one per
     * request), in one pipelined round trip; an admitted call of a capped scope holds its lease there for its
     * {@code leaseMs} (one per request, at least 1).
     */
    List<AdmissionDecision> admitAt(List<AdmissionRequest> requests, List<Long> micros, List<Long> leaseMs);

    /**
     * Takes each call's lease at a capped carrier, in order, at its time, for its {@code leaseMs}, in one pipelined
     * round trip: true where taken, false where the carrier had {@code max} calls in progress.
     */
    List<Boolean> takeCarrierAt(List<CarrierLease> leases);

    /** Drops these calls' leases at these carriers (calls that were not sent there after all), in one round trip. */
    void releaseCarrier(List<CarrierLease> leases);

    /**
     * One call's lease at one carrier.
     *
     * @param callKey   the call's identity, as in its admission request
     * @param carrierId the carrier
     * @param max       the carrier's max-concurrent
     * @param micros    when the lease is taken (microseconds since the epoch)
     * @param leaseMs   how long the call holds it (at least 1)
     */
    record CarrierLease(String callKey, String carrierId, int max, long micros, long leaseMs) {
    }

    /**
     * Replays on {@code redis}, which must be a server of its own: the script's clock is set there (the key
     * {@code <prefix>:{<tag>}:test-clock}, lua/README.md), which a gateway's Redis must never hold.
     */
    static ReplayAdmission on(RedissonClient redis, String keyPrefix) {
        return new ClockedAdmission(redis, keyPrefix);
    }
}
