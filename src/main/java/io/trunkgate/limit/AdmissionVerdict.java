package io.trunkgate.limit;

import java.time.Duration;
import java.util.Optional;

/**
 * The verdict on a call after the Redis-down policy. {@code unavailable} says why Redis gave no decision: then
 * {@code decision} is the in-memory one ({@code local} policy) or empty ({@code allow} / {@code reject}).
 * {@code gatewayBehind}: there was no decision because this gateway fell behind on Redis's replies while Redis
 * answered; the call is refused as overload, whatever the Redis-down policy.
 */
public record AdmissionVerdict(boolean admitted, Optional<AdmissionDecision> decision, Optional<String> unavailable,
                               boolean gatewayBehind) {

    public static AdmissionVerdict of(AdmissionDecision decision) {
        return new AdmissionVerdict(decision.admitted(), Optional.of(decision), Optional.empty(), false);
    }

    /** No decision from Redis ({@code reason}), and the Redis-down policy's answer: {@code admitted}, {@code local}. */
    public static AdmissionVerdict redisDown(boolean admitted, Optional<AdmissionDecision> local, String reason) {
        return new AdmissionVerdict(admitted, local, Optional.of(reason), false);
    }

    /** Refused as overload: no decision read in time while Redis answered ({@code reason}). */
    public static AdmissionVerdict gatewayBehind(String reason) {
        return new AdmissionVerdict(false, Optional.empty(), Optional.of(reason), true);
    }

    /** Seconds for a Retry-After header: {@code retryAfter} rounded up, at least 1. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }
}
