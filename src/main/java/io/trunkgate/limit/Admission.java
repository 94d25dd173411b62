package io.trunkgate.limit;

import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.limit.internal.FallbackAdmission;
import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.redisson.api.RedissonClient;

/**
 * The admission port: the decision on each INVITE, fleet-wide from Redis while it answers in time, else by the
 * Redis-down policy ({@code local}: this instance's share of every limit, in memory). It alone owns that
 * fallback. Blocks, window usage and group moves go to the same Redis keys.
 */
public interface Admission {

    /** Admits or refuses one call; when Redis gives no decision, {@code policy} does. Never fails for Redis. */
    CompletionStage<AdmissionVerdict> admit(AdmissionRequest request, RedisDownPolicy policy);

    /**
     * A peer moved into, out of or between groups (each given with its limits): its windows, dedupe set, block
     * and lease set follow it to the new hash tag.
     */
    CompletionStage<Void> movePeer(Scope peer, Optional<Scope> fromGroup, Optional<Scope> toGroup);

    BlockRegistry blocks();

    WindowUsage usage();

    /** The fleet-wide limiter itself, without timeout, breaker or fallback (warm-up). */
    AdmissionLimiter fleetWide();

    /** The leases of this instance's calls in progress (max-concurrent), which admissions take. */
    CallLeases leases();

    /**
     * Admission in Redis under {@code breaker}, with the in-memory fallback for a fleet of {@code fleetSize}.
     *
     * @param clockMicros the fallback's clock (wall time in microseconds)
     * @param instrument  wraps the fleet-wide limiter before the breaker (metrics time it)
     * @param leasing     who owns this instance's leases, how long they last, and which calls are still up
     */
    static Admission of(RedissonClient redis, String keyPrefix, RedisBreaker breaker, int fleetSize,
                        LongSupplier clockMicros, UnaryOperator<AdmissionLimiter> instrument, Leasing leasing) {
        return new FallbackAdmission(redis, keyPrefix, breaker, fleetSize, clockMicros, instrument, leasing);
    }

    /**
     * How this instance holds leases.
     *
     * @param owner     the instance id, carried in every lease
     * @param leaseTime how long a lease lasts unless renewed
     * @param liveCalls the keys (identities) of the calls this instance has in progress (INVITEs and dialogs)
     */
    record Leasing(String owner, Duration leaseTime, Supplier<Set<String>> liveCalls) {
    }
}
