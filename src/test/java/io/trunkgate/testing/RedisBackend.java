package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisClients;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.redisson.api.RedissonClient;

/** A real Redis topology a test runs against; each hands out independent clients (one per "gateway"). */
public interface RedisBackend {

    String name();

    RedisSettings settings();

    /** A new, independent Redisson client, as a separate gateway instance would have. */
    default RedissonClient newClient() {
        return RedisClients.connect(settings().connection(), settings().addresses().isEmpty() ? null : settings().addresses().get(0));
    }

    static RedisSettings settings(RedisMode mode, List<String> addresses) {
        return new RedisSettings(mode, addresses, Optional.empty(), Optional.empty(), Duration.ofSeconds(2),
                "tg-test", 0);
    }
}
