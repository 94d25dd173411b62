package io.trunkgate.auth.internal;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Uses recorded in Redis for the fleet, or, for a use Redis did not record (out of reach, too slow), in this
 * gateway's memory: then a replay at this gateway is still refused, one at another gateway is not. The call goes on
 * to admission, whose {@code admission.redis-down} decides it as it decides every call while Redis is away.
 */
public final class FallbackNonceUses implements NonceUses {

    private final NonceUses fleet;
    private final NonceUses local;

    public FallbackNonceUses(NonceUses fleet, NonceUses local) {
        this.fleet = fleet;
        this.local = local;
    }

    @Override
    public CompletionStage<Boolean> firstUse(String nonce, String nonceCount, Duration keep) {
        return fleet.firstUse(nonce, nonceCount, keep).handle((first, error) -> error == null
                ? CompletableFuture.completedFuture(first)
                : local.firstUse(nonce, nonceCount, keep)).thenCompose(stage -> stage);
    }
}
