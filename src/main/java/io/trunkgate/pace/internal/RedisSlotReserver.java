package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.PacerUnavailableException;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.redis.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.redisson.api.RedissonClient;

/**
 * Slots reserved through lua/pace.lua and given back through lua/give-back.lua; the key of carrier c is
 * {@code <prefix>:{c:<id>}:pace}.
 */
public final class RedisSlotReserver implements SlotReserver {

    static final LuaScript PACE = LuaScript.fromResource("pace.lua");
    private static final LuaScript NEXT_SLOT = LuaScript.fromResource("next-slot.lua");
    private static final LuaScript GIVE_BACK = LuaScript.fromResource("give-back.lua");

    private final RedissonClient redis;
    private final String keyPrefix;
    /**
     * Each carrier's ledger key and pace.lua's ARGV at its max-wait, made once per carrier configuration (a reload's
     * new one makes them again): replaces a key and three numbers turned into strings per call.
     */
    private final ConcurrentMap<String, Ledger> ledgers = new ConcurrentHashMap<>();

    /** What a call to pace.lua for {@code carrier} at its max-wait takes. */
    private record Ledger(CarrierConfig carrier, String key, List<Object> keys, List<String> args) {
    }

    public RedisSlotReserver(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.keyPrefix = keyPrefix;
    }

    public String key(String carrierId) {
        return keyPrefix + ":{c:" + carrierId + "}:pace";
    }

    /** Slots given back while later ones were still reserved (lua/give-back.lua). */
    private String returnedKey(String carrierId) {
        return keyPrefix + ":{c:" + carrierId + "}:pace:returned";
    }

    @Override
    public CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
        Ledger ledger = ledger(carrier);
        List<String> args = maxWait.equals(carrier.maxWait()) ? ledger.args() : args(carrier, maxWait);
        return PACE.run(redis, ledger.keys(), args.toArray())
                .thenApply(RedisSlotReserver::reservation)
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(new PacerUnavailableException(
                        "pacing for carrier " + carrier.id() + " failed: " + error.getMessage(), error)));
    }

    private Ledger ledger(CarrierConfig carrier) {
        Ledger ledger = ledgers.get(carrier.id());
        if (ledger == null || ledger.carrier() != carrier) {
            String key = key(carrier.id());
            ledger = new Ledger(carrier, key, List.of(key), args(carrier, carrier.maxWait()));
            ledgers.put(carrier.id(), ledger);
        }
        return ledger;
    }

    /** lua/pace.lua's ARGV. */
    static List<String> args(CarrierConfig carrier, Duration maxWait) {
        return List.of(Long.toString(carrier.intervalMicros()), Integer.toString(carrier.burst()),
                Long.toString(maxWait.toNanos() / 1000));
    }

    /** lua/pace.lua's reply {reserved, delay_us, slot_us, now_us}. */
    static Reservation reservation(List<Object> reply) {
        return new Reservation((Long) reply.get(0) == 1, Duration.ofNanos((Long) reply.get(1) * 1000),
                (Long) reply.get(2), (Long) reply.get(3), Reservation.Clock.REDIS);
    }

    /** A slot to reserve with the call's admission; given back through {@code guarded} (the guarded ledger). */
    public SlotRequest request(CarrierConfig carrier, SlotReserver guarded) {
        Ledger ledger = ledger(carrier);
        return new SlotRequest() {
            @Override
            public CarrierConfig carrier() {
                return carrier;
            }

            @Override
            public String ledgerKey() {
                return ledger.key();
            }

            @Override
            public List<String> scriptArgs() {
                return ledger.args();
            }

            @Override
            public Reservation reservation(List<Object> reply) {
                return RedisSlotReserver.reservation(reply);
            }

            @Override
            public void giveBack(Reservation reservation) {
                guarded.giveBack(carrier, reservation);
            }
        };
    }

    /**
     * Through lua/give-back.lua. A reservation with a delay (or any with burst 1) set the TAT to
     * slot + burst * interval.
     */
    @Override
    public CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
        long interval = carrier.intervalMicros();
        if (reservation.delay().isZero() && carrier.burst() > 1) {
            // slot = now may have come from anywhere in the burst: the TAT it set is unknown
            return CompletableFuture.completedFuture(null);
        }
        return GIVE_BACK.run(redis, List.of(key(carrier.id()), returnedKey(carrier.id())),
                        Long.toString(reservation.slotMicros() + carrier.burst() * interval), Long.toString(interval))
                .thenApply(reply -> (Void) null);
    }

    /** How long a call arriving now would wait for the carrier's slot; reads the ledger, reserves nothing. */
    public CompletionStage<Duration> nextSlotWait(CarrierConfig carrier) {
        return NEXT_SLOT.run(redis, List.of(key(carrier.id())), Long.toString(carrier.intervalMicros()),
                Integer.toString(carrier.burst())).thenApply(reply -> Duration.ofNanos((Long) reply.get(0) * 1000));
    }
}
