package io.trunkgate.health.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.Caller;
import io.trunkgate.health.CarrierDowns;
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
    private final CarrierResolver resolver;
    private HealthMonitor monitor;

    public SharedCarrierHealth(RedissonClient redis, String keyPrefix, String instanceId, Clock clock,
                               Supplier<Map<String, CarrierConfig>> carriers, CarrierResolver resolver,
                               CarrierDowns downs) {
        this.store = new RedisHealthStore(redis, keyPrefix);
        this.book = new HealthBook(store, instanceId, clock, carriers, resolver, downs);
        this.instanceId = instanceId;
        this.carriers = carriers;
        this.resolver = resolver;
    }

    @Override
    public synchronized void startChecks(ProbeSender sender, ScheduledExecutorService timers) {
        if (monitor == null) {
            monitor = new HealthMonitor(book, store, sender, carriers, resolver, instanceId, timers);
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
    public boolean isUp(CarrierConfig carrier, CarrierAddress address) {
        return book.isUp(carrier, address);
    }

    @Override
    public Map<CarrierAddress, CarrierState> addresses(CarrierConfig carrier) {
        return book.addresses(carrier);
    }

    @Override
    public void answered(CarrierConfig carrier, CarrierAddress address, int status, Optional<Duration> retryAfter,
                         Caller caller) {
        book.answered(carrier, address, status, retryAfter, caller);
    }

    @Override
    public void timedOut(CarrierConfig carrier, CarrierAddress address) {
        book.timedOut(carrier, address);
    }

    @Override
    public CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration) {
        return book.set(carrier, up, duration);
    }
}
