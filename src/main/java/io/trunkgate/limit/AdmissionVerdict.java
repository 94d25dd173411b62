package io.trunkgate.limit;

import java.time.Duration;
import java.util.Optional;

/**
 * The verdict on a call after the Redis-down policy. {@code unavailable} says why Redis gave no decision: then
 * {@code decision} is the in-memory one ({@code local} policy) or empty ({@code allow} / {@code reject}).
 */
public record AdmissionVerdict(boolean admitted, Optional<AdmissionDecision> decision, Optional<String> unavailable) {

    public static AdmissionVerdict of(AdmissionDecision decision) {
        return new AdmissionVerdict(decision.admitted(), Optional.of(decision), Optional.empty());
    }

    /** Seconds for a Retry-After header: {@code retryAfter} rounded up, at least 1. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }
}
