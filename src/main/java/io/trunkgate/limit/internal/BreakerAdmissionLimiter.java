package io.trunkgate.limit.internal;

import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.pace.Reservation;
import io.trunkgate.redis.RedisBreaker;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An admission limiter whose calls are bounded by the Redis timeout and circuit breaker. When the caller
 * refuses a call for want of a decision ({@link LimiterUnavailableException#refusedWithoutDecision()}),
 * an admission that Redis replied with after the timeout is revoked, so the refused call counts nowhere. A
 * carrier slot reserved with a late admission is given back in any case: the call went on without it.
 */
public final class BreakerAdmissionLimiter implements AdmissionLimiter {

    private final AdmissionLimiter redis;
    private final RedisBreaker breaker;
    private final RedisAdmissionLimiter revoker;

    /**
     * @param redis   the limiter the breaker bounds (RedisAdmissionLimiter, possibly timed)
     * @param revoker the same Redis limiter, which undoes admissions nobody used
     */
    public BreakerAdmissionLimiter(AdmissionLimiter redis, RedisBreaker breaker, RedisAdmissionLimiter revoker) {
        this.redis = redis;
        this.breaker = breaker;
        this.revoker = revoker;
    }

    @Override
    public CompletionStage<AdmissionDecision> admit(AdmissionRequest request) {
        AtomicBoolean sent = new AtomicBoolean();
        CompletableFuture<AdmissionDecision> reply = new CompletableFuture<>();
        return breaker.call(() -> {
            sent.set(true);
            return redis.admit(request).whenComplete((decision, error) -> reply.complete(decision));
        }, (message, cause) -> new LimiterUnavailableException(
                "admission for " + request.peer() + " unavailable: " + message, cause,
                () -> sent.get() ? reply.thenCompose(decision -> revokeAdmitted(request, decision))
                        : CompletableFuture.completedFuture(null)),
                late -> late.firstSlot().filter(Reservation::reserved)
                        .ifPresent(slot -> request.firstSlot().ifPresent(asked -> asked.giveBack(slot))));
    }

    private CompletionStage<Void> revokeAdmitted(AdmissionRequest request, AdmissionDecision decision) {
        if (decision == null || decision.outcome() != Outcome.ADMITTED) {
            return CompletableFuture.completedFuture(null);
        }
        return revoker.revoke(request, decision);
    }
}
