package io.trunkgate.testing;

import java.time.Duration;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The time the lua/ scripts take instead of Redis TIME for the keys of one hash tag: the key
 * {@code <prefix>:{<tag>}:test-clock} holds it in microseconds (lua/README.md, "Clock"). The test moves it, forwards
 * or back, as Redis's own clock could move; Redis's key expiry still runs on the real clock.
 */
public final class ScriptClock {

    /** 2026-01-01T00:00:00Z, as {@link ManualTime} starts. */
    public static final long START_MICROS = 1_767_225_600_000_000L;

    private final RedissonClient client;
    private final String key;
    private long micros;

    /** The clock of tag {@code tag} ({@code p:<peer>}, {@code g:<group>}, {@code c:<carrier>}), set to the start. */
    public ScriptClock(RedissonClient client, String prefix, String tag) {
        this.client = client;
        this.key = prefix + ":{" + tag + "}:test-clock";
        set(START_MICROS);
    }

    public long micros() {
        return micros;
    }

    public void set(long micros) {
        this.micros = micros;
        client.getBucket(key, StringCodec.INSTANCE).set(Long.toString(micros), Duration.ofMinutes(10));
    }

    /** Moves the clock by {@code step}; a negative step is Redis's clock stepping back. */
    public void advance(Duration step) {
        set(micros + step.toNanos() / 1000);
    }
}
