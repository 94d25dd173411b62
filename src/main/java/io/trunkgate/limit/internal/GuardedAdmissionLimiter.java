package io.trunkgate.limit.internal;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.redis.RedisGuard;
import java.util.concurrent.CompletionStage;

/** An admission limiter whose calls are bounded by the Redis timeout and circuit breaker. */
public final class GuardedAdmissionLimiter implements AdmissionLimiter {

    private final AdmissionLimiter redis;
    private final RedisGuard guard;

    public GuardedAdmissionLimiter(AdmissionLimiter redis, RedisGuard guard) {
        this.redis = redis;
        this.guard = guard;
    }

    @Override
    public CompletionStage<AdmissionDecision> admit(AdmissionRequest request) {
        return guard.call(() -> redis.admit(request), (message, cause) ->
                new LimiterUnavailableException("admission for " + request.peer() + " unavailable: " + message, cause));
    }
}
