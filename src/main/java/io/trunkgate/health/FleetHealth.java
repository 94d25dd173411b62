package io.trunkgate.health;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.internal.SharedCarrierHealth;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;

/** Carrier health shared by the fleet through Redis, with its probes; one per gateway. */
public interface FleetHealth extends CarrierHealth, AutoCloseable {

    /**
     * The health of {@code carriers} (read on every use, so a reload's carriers count), kept under keyPrefix; the
     * addresses of carriers named by host names come from {@code resolver}; {@code downs} is told of each down this
     * gateway sets.
     */
    static FleetHealth open(RedissonClient redis, String keyPrefix, String instanceId, Clock clock,
                            Supplier<Map<String, CarrierConfig>> carriers, CarrierResolver resolver,
                            CarrierDowns downs) {
        return new SharedCarrierHealth(redis, keyPrefix, instanceId, clock, carriers, resolver, downs);
    }

    /** Starts the probes (sent through {@code sender}) and the reading of the fleet's states, on {@code timers}. */
    void startChecks(ProbeSender sender, ScheduledExecutorService timers);

    /** Stops the checks. */
    @Override
    void close();
}
