package io.trunkgate.auth.internal;

import io.trunkgate.redis.RedisBreaker;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RBucket;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key the fleet's nonces are signed with, shared through one Redis key that the first gateway to look sets
 * ({@code SET NX}) and every gateway reads. Until Redis has answered, a gateway signs with a random key of its own
 * (its nonces are then good at that gateway only). A key replaced (Redis emptied, say) is still accepted until its
 * nonces have expired, beside the new one.
 */
public final class FleetSecret {

    private static final Logger log = LoggerFactory.getLogger(FleetSecret.class);
    private static final int BYTES = 32;

    /** The key nonces are signed with now, and the one before it, or null. */
    private record Keys(byte[] current, byte[] previous, boolean shared) {
    }

    private final RBucket<String> bucket;
    private final RedisBreaker breaker;
    private final SecureRandom random;
    private volatile Keys keys;

    public FleetSecret(RedissonClient client, String key, RedisBreaker breaker, SecureRandom random) {
        this.bucket = client.getBucket(key, StringCodec.INSTANCE);
        this.breaker = breaker;
        this.random = random;
        this.keys = new Keys(fresh(), null, false);
    }

    /** The key new nonces are signed with. */
    byte[] current() {
        return keys.current();
    }

    /** The keys a nonce may be signed with: the current one first. */
    List<byte[]> accepted() {
        Keys now = keys;
        return now.previous() == null ? List.of(now.current()) : List.of(now.current(), now.previous());
    }

    /** Whether the key is the fleet's (Redis has answered once at least). */
    public boolean shared() {
        return keys.shared();
    }

    /**
     * Reads the fleet's key from Redis (setting it first if there is none) and takes it: done when it did, failed
     * when Redis did not answer (then this gateway keeps signing with the key it has).
     */
    public CompletionStage<Void> refresh() {
        String candidate = Base64.getEncoder().encodeToString(fresh());
        return breaker.<String>call(() -> bucket.getAsync().thenCompose(value -> value != null
                        ? CompletableFuture.completedFuture(value)
                        : bucket.setIfAbsentAsync(candidate).thenCompose(set -> bucket.getAsync())),
                        (message, cause) -> new IllegalStateException("fleet nonce key not read: " + message, cause))
                .thenAccept(this::adopt)
                .whenComplete((done, error) -> {
                    if (error != null) {
                        log.debug("{}", error.toString());
                    }
                });
    }

    private void adopt(String value) {
        byte[] secret;
        try {
            secret = Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            secret = new byte[0];
        }
        if (secret.length < BYTES / 2) {
            log.warn("the fleet's nonce key in Redis is not base64 of {} bytes or more: this gateway keeps its own",
                    BYTES / 2);
            return;
        }
        Keys now = keys;
        if (!Arrays.equals(secret, now.current())) {
            keys = new Keys(secret, now.current(), true);
        } else if (!now.shared()) {
            keys = new Keys(now.current(), now.previous(), true);
        }
    }

    private byte[] fresh() {
        byte[] secret = new byte[BYTES];
        random.nextBytes(secret);
        return secret;
    }
}
