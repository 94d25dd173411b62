package io.trunkgate.limit.internal;

import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.limit.Scope;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;

/** Blocks as keys with a TTL, read by admit.lua on every call of the peer. */
public final class RedisBlockRegistry implements BlockRegistry {

    private final RedissonClient redis;
    private final KeyLayout layout;

    public RedisBlockRegistry(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
    }

    @Override
    public CompletionStage<Void> block(String peerId, Optional<String> groupId, Duration duration) {
        if (duration.toMillis() <= 0) {
            throw new IllegalArgumentException("a block lasts at least 1ms: " + duration);
        }
        return redis.getBucket(key(peerId, groupId)).setAsync("blocked", duration.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public CompletionStage<Boolean> unblock(String peerId, Optional<String> groupId) {
        return redis.getBucket(key(peerId, groupId)).deleteAsync();
    }

    @Override
    public CompletionStage<Optional<Duration>> remaining(String peerId, Optional<String> groupId) {
        return redis.getBucket(key(peerId, groupId)).remainTimeToLiveAsync()
                .thenApply(ms -> ms > 0 ? Optional.of(Duration.ofMillis(ms)) : Optional.empty());
    }

    private String key(String peerId, Optional<String> groupId) {
        return layout.blockKey(layout.tag(peerId, groupId), Scope.Kind.PEER, peerId);
    }
}
