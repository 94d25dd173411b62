package io.trunkgate.redis;

import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.Optional;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The gateway's Redis: the client, and in embedded mode the private redis-server it owns. */
public final class RedisRuntime implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RedisRuntime.class);

    private final RedissonClient client;
    private final Optional<RedisServerProcess> embedded;

    private RedisRuntime(RedissonClient client, Optional<RedisServerProcess> embedded) {
        this.client = client;
        this.embedded = embedded;
    }

    /** Connects (starting the embedded server first in embedded mode); the client reads and writes on {@code io}. */
    public static RedisRuntime open(RedisConnection settings, EventLoopGroup io) {
        if (settings.mode() != RedisConnection.Mode.EMBEDDED) {
            return new RedisRuntime(RedisClients.connect(settings, null, io), Optional.empty());
        }
        RedisServerProcess server = RedisServerProcess.start(settings.embeddedPort(), List.of());
        log.info("embedded redis-server started on 127.0.0.1:{}", server.port());
        try {
            return new RedisRuntime(RedisClients.connect(settings, server.address(), io), Optional.of(server));
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
    }

    public RedissonClient client() {
        return client;
    }

    public Optional<RedisServerProcess> embeddedServer() {
        return embedded;
    }

    @Override
    public void close() {
        client.shutdown();
        embedded.ifPresent(server -> {
            server.close();
            log.info("embedded redis-server stopped");
        });
    }
}
