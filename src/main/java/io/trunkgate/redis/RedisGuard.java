package io.trunkgate.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps call decisions from hanging on a dead Redis: every guarded call has a hard timeout, and a circuit
 * breaker stops sending calls once most recent ones failed, letting a probe through every
 * {@code probeInterval} so decisions come from Redis again soon after it returns.
 */
public final class RedisGuard {

    private static final Logger log = LoggerFactory.getLogger(RedisGuard.class);

    private final Duration timeout;
    private final CircuitBreaker breaker;

    public RedisGuard(Duration timeout, Duration probeInterval) {
        this.timeout = timeout;
        this.breaker = CircuitBreaker.of("redis", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.TIME_BASED)
                .slidingWindowSize(2)
                .minimumNumberOfCalls(3)
                .failureRateThreshold(50)
                .waitDurationInOpenState(probeInterval)
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build());
        breaker.getEventPublisher().onStateTransition(event ->
                log.warn("redis circuit {}", event.getStateTransition()));
    }

    /** The defaults: 50 ms per call, a probe every 250 ms while Redis is down. */
    public static RedisGuard withTimeout(Duration timeout) {
        return new RedisGuard(timeout, Duration.ofMillis(250));
    }

    /**
     * Runs {@code call} under the timeout and the breaker. When the breaker is open, or the call fails or
     * times out, the result fails with {@code unavailable.apply(message, cause)}.
     */
    public <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call,
                                       BiFunction<String, Throwable, RuntimeException> unavailable) {
        if (!breaker.tryAcquirePermission()) {
            return CompletableFuture.failedFuture(unavailable.apply("redis circuit open", null));
        }
        long start = System.nanoTime();
        CompletableFuture<T> result = new CompletableFuture<>();
        call.get().toCompletableFuture().orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS)
                .whenComplete((value, error) -> {
                    long elapsed = System.nanoTime() - start;
                    if (error == null) {
                        breaker.onSuccess(elapsed, TimeUnit.NANOSECONDS);
                        result.complete(value);
                    } else {
                        breaker.onError(elapsed, TimeUnit.NANOSECONDS, error);
                        String message = error instanceof java.util.concurrent.TimeoutException
                                || error.getCause() instanceof java.util.concurrent.TimeoutException
                                ? "redis did not answer within " + timeout.toMillis() + "ms" : error.getMessage();
                        result.completeExceptionally(unavailable.apply(message, error));
                    }
                });
        return result;
    }

    /** CLOSED (Redis in use), OPEN (failing fast) or HALF_OPEN (probing). */
    public String state() {
        return breaker.getState().name();
    }

    public boolean isAvailable() {
        return breaker.getState() == CircuitBreaker.State.CLOSED;
    }
}
