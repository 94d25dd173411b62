package io.trunkgate.gateway;

import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimiterUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission for one INVITE of a known peer: its scopes from the active config, the fleet-wide decision,
 * and the Redis-down policy when no decision could be had.
 */
public final class CallAdmission {

    private static final Logger log = LoggerFactory.getLogger(CallAdmission.class);

    /**
     * The verdict on a call. {@code unavailable} says why Redis gave no decision: then {@code decision} is
     * the in-memory one ({@code local} policy) or empty ({@code allow} / {@code reject}).
     */
    public record Verdict(boolean admitted, Optional<AdmissionDecision> decision, Optional<String> unavailable) {
        static Verdict of(AdmissionDecision decision) {
            return new Verdict(decision.admitted(), Optional.of(decision), Optional.empty());
        }
    }

    private final AdmissionLimiter limiter;
    private final AdmissionLimiter local;

    /**
     * @param limiter the fleet-wide limiter (Redis, behind its guard)
     * @param local   this instance's in-memory share of every limit, for the {@code local} policy
     */
    public CallAdmission(AdmissionLimiter limiter, AdmissionLimiter local) {
        this.limiter = limiter;
        this.local = local;
    }

    public CompletionStage<Verdict> admit(ActiveConfig active, PeerConfig peer, String callId) {
        AdmissionRequest request = new AdmissionRequest(callId, 1, active.peerScope(peer), active.groupScope(peer));
        RedisDownPolicy policy = active.config().admission().redisDown();
        return limiter.admit(request).handle((decision, error) -> {
            if (error == null) {
                return CompletableFuture.completedFuture(Verdict.of(decision));
            }
            String reason = rootMessage(error);
            log.debug("call={} peer={} no admission decision ({}); redis-down policy {}", callId, peer.id(),
                    reason, policy);
            CompletionStage<Verdict> verdict = policy == RedisDownPolicy.LOCAL
                    ? local.admit(request).thenApply(localDecision -> new Verdict(localDecision.admitted(),
                            Optional.of(localDecision), Optional.of(reason)))
                    : CompletableFuture.completedFuture(new Verdict(policy == RedisDownPolicy.ALLOW,
                            Optional.<AdmissionDecision>empty(), Optional.of(reason)));
            return verdict.thenApply(v -> {
                // An admission Redis replied with too late counts only if the call went in anyway.
                if (!v.admitted() && unwrap(error) instanceof LimiterUnavailableException unavailable) {
                    unavailable.refusedWithoutDecision();
                }
                return v;
            });
        }).thenCompose(verdict -> verdict);
    }

    private static String rootMessage(Throwable error) {
        return unwrap(error).getMessage();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    /** Seconds for a Retry-After header: the decision's wait rounded up, at least 1. */
    public static long retryAfterSeconds(Duration retryAfter) {
        return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
    }
}
