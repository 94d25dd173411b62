package io.trunkgate.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * How to reach Redis, as plain values (gateway.conf's {@code redis} block maps onto it).
 *
 * @param addresses      "redis://host:port" of the server (standalone), the sentinels, or cluster seed nodes;
 *                       empty for embedded
 * @param sentinelMaster the master name watched by the sentinels (sentinel mode only)
 * @param timeout        how long one Redis command may take before the call counts as failed
 * @param embeddedPort   port of the embedded redis-server; 0 picks a free one
 */
public record RedisConnection(Mode mode, List<String> addresses, Optional<String> sentinelMaster,
                              Optional<String> password, Duration timeout, int embeddedPort) {

    /** How the gateway reaches Redis. */
    public enum Mode {
        /** The gateway starts and owns a private redis-server child process. */
        EMBEDDED,
        STANDALONE,
        SENTINEL,
        CLUSTER
    }

    public RedisConnection {
        addresses = List.copyOf(addresses);
    }
}
