package io.trunkgate.limit;

import java.util.concurrent.CompletionStage;

/** Decides fleet-wide whether a call may enter: every limit of every scope checked, then recorded, at once. */
public interface AdmissionLimiter {

    /**
     * Admits or refuses one call. Completes exceptionally with {@link LimiterUnavailableException} when the
     * shared state cannot be reached; the caller's Redis-down policy decides then.
     */
    CompletionStage<AdmissionDecision> admit(AdmissionRequest request);
}
