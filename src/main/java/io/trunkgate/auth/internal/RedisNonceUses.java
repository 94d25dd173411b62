package io.trunkgate.auth.internal;

import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Uses recorded fleet-wide: one key per pair, {@code <prefix>:auth:nc:<nonce>:<nc>}, set with {@code SET NX PX}, so
 * of two gateways given the same pair at once exactly one sees it first. The key lapses when the nonce can no longer
 * be answered; behind the {@link RedisBreaker}, a call fails fast while Redis is out of reach.
 */
public final class RedisNonceUses implements NonceUses {

    private final RedissonClient client;
    private final String prefix;
    private final RedisBreaker breaker;

    public RedisNonceUses(RedissonClient client, String keyPrefix, RedisBreaker breaker) {
        this.client = client;
        this.prefix = keyPrefix + ":auth:nc:";
        this.breaker = breaker;
    }

    @Override
    public CompletionStage<Boolean> firstUse(String nonce, String nonceCount, Duration keep) {
        return breaker.call(() -> client.<String>getBucket(prefix + nonce + ":" + nonceCount, StringCodec.INSTANCE)
                        .setIfAbsentAsync("1", keep),
                (message, cause) -> new IllegalStateException("nonce use not recorded: " + message, cause));
    }
}
