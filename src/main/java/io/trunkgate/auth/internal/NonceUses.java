package io.trunkgate.auth.internal;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** The (nonce, nonce-count) pairs answered so far: each may be used once (RFC 7616 §5.12, replay). */
public interface NonceUses {

    /**
     * Records the use of ({@code nonce}, {@code nonceCount}) for {@code keep}: true when it is the first, false for a
     * replay (or when it cannot be told apart from one).
     */
    CompletionStage<Boolean> firstUse(String nonce, String nonceCount, Duration keep);
}
