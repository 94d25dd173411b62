package io.trunkgate.testing;

import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.redis.RedisServerProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** A real master watched by one real sentinel (redis-server in sentinel mode), both on free ports. */
public final class SentinelRedis implements RedisBackend, AutoCloseable {

    private final RedisServerProcess master;
    private final RedisServerProcess sentinel;

    private SentinelRedis(RedisServerProcess master, RedisServerProcess sentinel) {
        this.master = master;
        this.sentinel = sentinel;
    }

    public static SentinelRedis start() {
        RedisServerProcess master = RedisServerProcess.start();
        try {
            Path conf = Files.createTempFile("trunkgate-sentinel-", ".conf");
            Files.writeString(conf, "sentinel monitor tgmaster 127.0.0.1 " + master.port() + " 1\n"
                    + "sentinel down-after-milliseconds tgmaster 2000\n");
            RedisServerProcess sentinel = RedisServerProcess.start(0, Optional.of(conf), List.of("--sentinel"));
            return new SentinelRedis(master, sentinel);
        } catch (IOException e) {
            master.close();
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return "sentinel";
    }

    @Override
    public RedisSettings settings() {
        return new RedisSettings(RedisMode.SENTINEL, List.of(sentinel.address()), Optional.of("tgmaster"),
                Optional.empty(), Duration.ofSeconds(2), "tg-test", 0);
    }

    @Override
    public void close() {
        sentinel.close();
        master.close();
    }
}
