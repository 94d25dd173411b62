package io.trunkgate.health.internal;

import io.trunkgate.health.CarrierState;
import io.trunkgate.redis.LuaScript;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Carrier health in Redis: {@code <prefix>:{c:<id>}:health} holds the state in force when a carrier is not
 * plainly up (a string with a TTL, written through lua/carrier-health.lua), {@code <prefix>:{c:<id>}:health:<address>}
 * the same for one address of a carrier named by a host name, {@code <prefix>:{c:<id>}:probe-lease} names the
 * instance that probes it (lua/probe-lease.lua).
 */
public final class RedisHealthStore {

    private static final LuaScript PUBLISH = LuaScript.fromResource("carrier-health.lua");
    private static final LuaScript LEASE = LuaScript.fromResource("probe-lease.lua");

    private final RedissonClient redis;
    private final String keyPrefix;

    public RedisHealthStore(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    /**
     * Publishes {@code state} for {@code ttl} ({@code null}: the carrier is up, clear what the checks found).
     * Completes with the state in force afterwards, empty when the carrier is plainly up.
     */
    CompletionStage<Optional<CarrierState>> publish(Subject subject, CarrierState.Origin origin, CarrierState state,
                                                    Duration ttl) {
        String value = state == null ? "" : StateCodec.encode(state);
        return PUBLISH.run(redis, List.of(subject.redisKey(keyPrefix)), value, Integer.toString(origin.ordinal()),
                Long.toString(Math.max(1, ttl.toMillis()))).thenApply(reply -> StateCodec.decode((String) reply.get(0)));
    }

    /** The states in force for these carriers and addresses; one plainly up is absent. */
    CompletionStage<Map<Subject, CarrierState>> read(Collection<Subject> subjects) {
        RBatch batch = redis.createBatch(BatchOptions.defaults());
        Map<Subject, RFuture<Object>> values = new HashMap<>();
        for (Subject subject : subjects) {
            values.put(subject, batch.getBucket(subject.redisKey(keyPrefix), StringCodec.INSTANCE).getAsync());
        }
        return batch.executeAsync().thenApply(done -> {
            Map<Subject, CarrierState> states = new HashMap<>();
            values.forEach((id, value) -> StateCodec.decode((String) value.toCompletableFuture().join())
                    .ifPresent(state -> states.put(id, state)));
            return states;
        });
    }

    /** Whether this instance holds (took or renewed) the lease to probe the carrier. */
    CompletionStage<Boolean> lease(String carrierId, String instanceId, Duration ttl) {
        return LEASE.run(redis, List.of(keyPrefix + ":{c:" + carrierId + "}:probe-lease"), instanceId,
                Long.toString(ttl.toMillis())).thenApply(reply -> (Long) reply.get(0) == 1);
    }

    /** "origin|up|since_ms|until_ms|by|reason": origin first (the script compares it), reason last (free text). */
    static final class StateCodec {

        private StateCodec() {
        }

        static String encode(CarrierState state) {
            return state.origin().ordinal() + "|" + (state.up() ? "up" : "down") + "|" + state.since().toEpochMilli()
                    + "|" + state.until().map(Instant::toEpochMilli).orElse(0L) + "|" + state.by() + "|"
                    + state.reason();
        }

        static Optional<CarrierState> decode(String value) {
            if (value == null || value.isEmpty()) {
                return Optional.empty();
            }
            String[] parts = value.split("\\|", 6);
            if (parts.length < 6) {
                return Optional.empty();
            }
            try {
                long until = Long.parseLong(parts[3]);
                return Optional.of(new CarrierState("up".equals(parts[1]),
                        CarrierState.Origin.values()[Integer.parseInt(parts[0])], parts[5],
                        Instant.ofEpochMilli(Long.parseLong(parts[2])),
                        until == 0 ? Optional.empty() : Optional.of(Instant.ofEpochMilli(until)), parts[4]));
            } catch (RuntimeException e) {
                return Optional.empty();
            }
        }
    }
}
