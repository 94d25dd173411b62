package io.trunkgate.limit.internal;

import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.limit.Admission.Leasing;
import io.trunkgate.limit.Admission;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.AdmissionVerdict;
import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WindowUsage;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.throttle.LogFields;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission with its Redis-down policy in one place: the fleet-wide decision (Redis behind its breaker) while
 * there is one; otherwise {@code local} asks this instance's in-memory share of every limit, {@code allow}
 * admits and {@code reject} refuses. A call that had no decision because this gateway fell behind while Redis
 * answered is refused as overload under every policy: Redis is not down.
 */
public final class FallbackAdmission implements Admission {

    private static final Logger log = LoggerFactory.getLogger(FallbackAdmission.class);

    private final RedisAdmissionLimiter redis;
    private final AdmissionLimiter guarded;
    private final AdmissionLimiter local;
    private final BlockRegistry blocks;
    private final WindowUsage usage;
    private final RedisCallLeases leases;

    public FallbackAdmission(RedissonClient client, String keyPrefix, RedisBreaker breaker, int fleetSize,
                             LongSupplier clockMicros, UnaryOperator<AdmissionLimiter> instrument, Leasing leasing) {
        this.leases = new RedisCallLeases(client, keyPrefix, breaker, leasing.owner(), leasing.leaseTime(),
                leasing.liveCalls());
        this.redis = new RedisAdmissionLimiter(client, keyPrefix, Optional.of(leases));
        this.guarded = new BreakerAdmissionLimiter(instrument.apply(redis), breaker, redis);
        this.local = new LocalAdmissionLimiter(fleetSize, clockMicros);
        this.blocks = new RedisBlockRegistry(client, keyPrefix);
        this.usage = new WindowUsageReader(client, keyPrefix);
    }

    @Override
    public CompletionStage<AdmissionVerdict> admit(AdmissionRequest request, RedisDownPolicy policy) {
        return guarded.admit(request).handle((decision, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(AdmissionVerdict.of(decision));
            }
            String reason = unwrap(error).getMessage();
            boolean behind = unwrap(error) instanceof LimiterUnavailableException unavailable
                    && unavailable.gatewayBehind();
            log.debug("call={} peer={} no admission decision ({}); {}", LogFields.value(request.callKey()),
                    request.peer().id(), reason, behind ? "refused as overload" : "redis-down policy " + policy);
            CompletionStage<AdmissionVerdict> verdict = behind
                    ? CompletableFuture.completedFuture(AdmissionVerdict.gatewayBehind(reason))
                    : policy == RedisDownPolicy.LOCAL
                    ? local.admit(request).thenApply(localDecision -> AdmissionVerdict.redisDown(
                            localDecision.admitted(), Optional.of(localDecision), reason))
                    : CompletableFuture.completedFuture(AdmissionVerdict.redisDown(policy == RedisDownPolicy.ALLOW,
                            Optional.empty(), reason));
            return verdict.thenApply(v -> {
                // An admission Redis replied with too late counts only if the call went in anyway.
                if (!v.admitted() && unwrap(error) instanceof LimiterUnavailableException unavailable) {
                    unavailable.refusedWithoutDecision();
                }
                return v;
            });
        }).thenCompose(verdict -> verdict);
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    @Override
    public CompletionStage<Void> movePeer(Scope peer, Optional<Scope> fromGroup, Optional<Scope> toGroup) {
        return redis.movePeer(peer, fromGroup, toGroup);
    }

    @Override
    public BlockRegistry blocks() {
        return blocks;
    }

    @Override
    public WindowUsage usage() {
        return usage;
    }

    @Override
    public AdmissionLimiter fleetWide() {
        return redis;
    }

    @Override
    public CallLeases leases() {
        return leases;
    }
}
