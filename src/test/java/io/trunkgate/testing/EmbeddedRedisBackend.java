package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisRuntime;
import java.util.List;

/** The gateway's own embedded mode: a RedisRuntime that started its private redis-server. */
public final class EmbeddedRedisBackend implements RedisBackend {

    private static EmbeddedRedisBackend shared;

    private final RedisRuntime runtime;

    private EmbeddedRedisBackend(RedisRuntime runtime) {
        this.runtime = runtime;
    }

    public static synchronized EmbeddedRedisBackend shared() {
        if (shared == null) {
            shared = new EmbeddedRedisBackend(RedisRuntime.open(RedisBackend.settings(RedisMode.EMBEDDED, List.of()).connection(), null));
            Runtime.getRuntime().addShutdownHook(new Thread(shared.runtime::close));
        }
        return shared;
    }

    @Override
    public String name() {
        return "embedded";
    }

    /** Further clients reach the embedded server as a standalone one, as other tools would. */
    @Override
    public RedisSettings settings() {
        return RedisBackend.settings(RedisMode.STANDALONE, List.of(runtime.embeddedServer().orElseThrow().address()));
    }
}
