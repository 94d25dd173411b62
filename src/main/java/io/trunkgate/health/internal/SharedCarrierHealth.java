package io.trunkgate.health.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.health.CarrierState;
import io.trunkgate.health.FleetHealth;
import io.trunkgate.health.ProbeSender;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;

/** The {@link HealthBook} on a {@link RedisHealthStore}, driven by a {@link HealthMonitor} once started. */
public final class SharedCarrierHealth implements FleetHealth {

    private final RedisHealthStore store;
    private final HealthBook book;
    private final String instanceId;
    private final Supplier<Map<String, CarrierConfig>> carriers;
    private HealthMonitor monitor;

    public SharedCarrierHealth(RedissonClient redis, String keyPrefix, String instanceId, Clock clock,
                               Supplier<Map<String, CarrierConfig>> carriers) {
        this.store = new RedisHealthStore(redis, keyPrefix);
        this.book = new HealthBook(store, instanceId, clock, carriers);
        this.instanceId = instanceId;
        this.carriers = carriers;
    }

    @Override
    public synchronized void startChecks(ProbeSender sender, ScheduledExecutorService timers) {
        if (monitor == null) {
            monitor = new HealthMonitor(book, store, sender, carriers, instanceId, timers);
        }
    }

    @Override
    public synchronized void close() {
        if (monitor != null) {
            monitor.close();
        }
    }

    @Override
    public CarrierState state(String carrierId) {
        return book.state(carrierId);
    }

    @Override
    public void answered(CarrierConfig carrier, int status, Optional<Duration> retryAfter) {
        book.answered(carrier, status, retryAfter);
    }

    @Override
    public void timedOut(CarrierConfig carrier) {
        book.timedOut(carrier);
    }

    @Override
    public CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration) {
        return book.set(carrier, up, duration);
    }
}
