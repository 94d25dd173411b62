package io.trunkgate.config;

import io.trunkgate.redis.RedisConnection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The {@code redis} block of gateway.conf.
 *
 * @param addresses      "redis://host:port" of the server (standalone), the sentinels, or cluster seed nodes;
 *                       empty for embedded
 * @param sentinelMaster the master name watched by the sentinels (sentinel mode only)
 * @param timeout        how long one Redis command may take before the call counts as failed
 * @param keyPrefix      prefix of every key the gateway writes, so several deployments can share a server
 * @param embeddedPort   port of the embedded redis-server; 0 picks a free one
 */
public record RedisSettings(RedisMode mode, List<String> addresses, Optional<String> sentinelMaster,
                            Optional<String> password, Duration timeout, String keyPrefix, int embeddedPort) {
    public RedisSettings {
        addresses = List.copyOf(addresses);
    }

    /** What the redis package needs to connect: these settings as its own plain values. */
    public RedisConnection connection() {
        return new RedisConnection(RedisConnection.Mode.valueOf(mode.name()), addresses, sentinelMaster, password,
                timeout, embeddedPort);
    }
}
