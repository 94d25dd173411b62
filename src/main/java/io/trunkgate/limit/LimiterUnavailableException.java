package io.trunkgate.limit;

import io.trunkgate.redis.GatewayBehindException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** The shared limit state (Redis) could not be reached or answered badly, so no decision was made. */
public class LimiterUnavailableException extends RuntimeException {

    private final transient Supplier<CompletionStage<Void>> refusedWithoutDecision;

    public LimiterUnavailableException(String message, Throwable cause) {
        this(message, cause, () -> CompletableFuture.completedFuture(null));
    }

    /** @param refusedWithoutDecision what {@link #refusedWithoutDecision()} does */
    public LimiterUnavailableException(String message, Throwable cause,
                                       Supplier<CompletionStage<Void>> refusedWithoutDecision) {
        super(message, cause);
        this.refusedWithoutDecision = refusedWithoutDecision;
    }

    /**
     * Whether there was no decision because this gateway is behind on Redis's replies (Redis answered calls sent
     * after this one), not because Redis is down: overload, not a case for the Redis-down policy.
     */
    public boolean gatewayBehind() {
        return GatewayBehindException.causedBy(this);
    }

    /**
     * Tells the limiter that the caller refused the call for want of a decision. Redis may still have admitted
     * it (a reply after the timeout); such an admission is then undone, so the call counts nowhere. Completes
     * once the late reply, if any, has been dealt with.
     */
    public CompletionStage<Void> refusedWithoutDecision() {
        return refusedWithoutDecision.get();
    }
}
