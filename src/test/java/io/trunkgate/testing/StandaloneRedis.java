package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisServerProcess;
import java.util.List;

/** One real redis-server on a free port, shared by the tests of this JVM and gone with it. */
public final class StandaloneRedis implements RedisBackend {

    private static StandaloneRedis shared;

    private final RedisServerProcess server;

    private StandaloneRedis(RedisServerProcess server) {
        this.server = server;
    }

    public static synchronized StandaloneRedis shared() {
        if (shared == null) {
            shared = new StandaloneRedis(RedisServerProcess.start());
            Runtime.getRuntime().addShutdownHook(new Thread(shared.server::close));
        }
        return shared;
    }

    /** A private server, for tests that kill or restart it; the caller closes it. */
    public static StandaloneRedis startPrivate() {
        return new StandaloneRedis(RedisServerProcess.start());
    }

    public RedisServerProcess server() {
        return server;
    }

    @Override
    public String name() {
        return "standalone";
    }

    @Override
    public RedisSettings settings() {
        return RedisBackend.settings(RedisMode.STANDALONE, List.of(server.address()));
    }
}
