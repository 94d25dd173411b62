package io.trunkgate.redis;

import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.BaseConfig;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;
import org.redisson.config.SentinelServersConfig;

/**
 * Builds the Redisson client for each Redis mode of gateway.conf. Reads go to masters: a block or a window
 * read from a lagging replica would be stale. Commands are never retried (a decision must not wait for
 * a retry; {@link RedisBreaker} decides what happens instead) and a lost connection is re-tried every 100 ms,
 * so decisions come from Redis again right after it returns.
 */
public final class RedisClients {

    private static final Duration RECONNECT_DELAY = Duration.ofMillis(100);
    private static final int CONNECT_TIMEOUT_MS = 1000;
    private static final int COMMAND_RECLAIM_MS = 1000;
    /**
     * Unused as a delay (commands are not retried), but Redisson ticks its timer wheel at a fraction of the
     * smaller of this and the timeout: with its default, a random one of 0.5-1 s, it woke every 10-49 ms. A whole
     * second, no larger than the timeout, gives its usual 100 ms tick.
     */
    private static final Duration RETRY_DELAY = Duration.ofMillis(COMMAND_RECLAIM_MS);
    /** How often the cluster topology is re-read, so a promoted replica is used soon after a failover. */
    private static final int CLUSTER_SCAN_INTERVAL_MS = 1000;

    private RedisClients() {
    }

    /**
     * Connects to the Redis {@code settings} name. In embedded mode {@code embeddedAddress} is the address of
     * the server the gateway started (see {@link RedisServerProcess}).
     */
    public static RedissonClient connect(RedisConnection settings, String embeddedAddress) {
        return connect(settings, embeddedAddress, null);
    }

    /** As {@link #connect(RedisConnection, String)}, reading and writing on {@code io} (null: Redisson's own threads). */
    public static RedissonClient connect(RedisConnection settings, String embeddedAddress, EventLoopGroup io) {
        Config config = new Config();
        if (io != null) {
            config.setEventLoopGroup(io);
        }
        config.setCodec(StringCodec.INSTANCE);
        switch (settings.mode()) {
            case EMBEDDED, STANDALONE -> {
                String address = settings.addresses().isEmpty() ? embeddedAddress : settings.addresses().get(0);
                common(config.useSingleServer().setAddress(address).setConnectionMinimumIdleSize(4), settings);
            }
            case SENTINEL -> {
                SentinelServersConfig sentinel = common(config.useSentinelServers(), settings)
                        .setMasterName(settings.sentinelMaster().orElseThrow())
                        .setReadMode(ReadMode.MASTER)
                        .setCheckSentinelsList(false);
                settings.addresses().forEach(sentinel::addSentinelAddress);
            }
            case CLUSTER -> {
                ClusterServersConfig cluster = common(config.useClusterServers(), settings)
                        .setReadMode(ReadMode.MASTER)
                        .setScanInterval(CLUSTER_SCAN_INTERVAL_MS);
                settings.addresses().forEach(cluster::addNodeAddress);
            }
        }
        return Redisson.create(config);
    }

    private static <T extends BaseConfig<T>> T common(T config, RedisConnection settings) {
        settings.password().ifPresent(config::setPassword);
        // RedisBreaker times calls out (allowing for pauses of this JVM); Redisson's own timeout only reclaims a
        // command the breaker has already given up on, so it must not fire first.
        return config.setTimeout((int) (settings.timeout().toMillis() + COMMAND_RECLAIM_MS))
                .setRetryAttempts(0)
                .setRetryDelay(new ConstantDelay(RETRY_DELAY))
                .setConnectTimeout(CONNECT_TIMEOUT_MS)
                .setReconnectionDelay(new ConstantDelay(RECONNECT_DELAY));
    }
}
