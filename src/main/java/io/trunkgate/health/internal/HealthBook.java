package io.trunkgate.health.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.CarrierState;
import io.trunkgate.health.CarrierState.Origin;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This gateway's view of every carrier's health, and the checks that change it. A change this gateway finds is
 * applied to its view at once and published in Redis; {@link #refresh()} takes in what the fleet published.
 * While Redis is unreachable the view is this gateway's own.
 *
 * <p>Failures (a probe unanswered or answered with a fail code, a call timed out or answered 503) count up to
 * the carrier's {@code down-after}; answered probes then count up to {@code up-after}. Only carriers with a
 * {@code probe} block are counted: without probes nothing would bring them back. A 503 with Retry-After holds
 * any carrier down for that long; an operator's hold outranks it, and either outranks what the checks find.
 */
public final class HealthBook implements CarrierHealth {

    private static final Logger log = LoggerFactory.getLogger(HealthBook.class);

    private final RedisHealthStore store;
    private final String instanceId;
    private final Clock clock;
    private final Supplier<Map<String, CarrierConfig>> carriers;
    private final Map<String, Entry> entries = new ConcurrentHashMap<>();

    /** One carrier: the state in force as this gateway sees it, and its check counts. */
    private static final class Entry {
        CarrierState view;
        int fails;
        int oks;
        /** Publications not yet answered: a refresh read before them must not undo them. */
        int publishing;

        Entry(CarrierState view) {
            this.view = view;
        }
    }

    public HealthBook(RedisHealthStore store, String instanceId, Clock clock,
                      Supplier<Map<String, CarrierConfig>> carriers) {
        this.store = store;
        this.instanceId = instanceId;
        this.clock = clock;
        this.carriers = carriers;
    }

    @Override
    public CarrierState state(String carrierId) {
        Entry entry = entry(carrierId);
        synchronized (entry) {
            return current(entry, clock.instant());
        }
    }

    @Override
    public void answered(CarrierConfig carrier, int status, Optional<Duration> retryAfter) {
        if (status == 503 && retryAfter.filter(d -> d.toMillis() > 0).isPresent()) {
            hold(carrier.id(), false, Origin.CARRIER, "503 Retry-After " + retryAfter.get().toSeconds() + "s",
                    retryAfter.get());
        } else if (status == 503) {
            failure(carrier, "503");
        } else if (carrier.probe().isPresent()) {
            Entry entry = entry(carrier.id());
            synchronized (entry) {
                entry.fails = 0;
            }
        }
    }

    @Override
    public void timedOut(CarrierConfig carrier) {
        failure(carrier, "timeout");
    }

    /** A probe's result: the status of the carrier's final response, 0 for none in time. */
    void probed(CarrierConfig carrier, int status) {
        ProbeSettings probe = carrier.probe().orElseThrow();
        if (status == 0 || probe.failCodes().contains(status)) {
            failure(carrier, status == 0 ? "probe unanswered" : "probe answered " + status);
        } else {
            success(carrier, probe);
        }
    }

    @Override
    public CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration) {
        if (duration.isPresent()) {
            return hold(carrier.id(), up, Origin.OPERATOR, up ? "set up by an operator" : "set down by an operator",
                    duration.get());
        }
        if (!up) {
            throw new IllegalArgumentException("setting a carrier down takes a duration");
        }
        Entry entry = entry(carrier.id());
        synchronized (entry) {
            entry.view = CarrierState.up(clock.instant(), "set up by an operator", instanceId);
            entry.fails = 0;
            entry.oks = 0;
        }
        return publish(carrier.id(), Origin.OPERATOR, null, Duration.ofMillis(1));
    }

    /** Takes in the states the fleet published for every configured carrier; on failure the view stays as is. */
    public CompletionStage<Void> refresh() {
        if (carriers.get().isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return store.read(carriers.get().keySet()).handle((states, error) -> {
            if (error != null) {
                log.debug("carrier health not read from redis: {}", error.toString());
                return null;
            }
            for (String id : carriers.get().keySet()) {
                Entry entry = entry(id);
                synchronized (entry) {
                    if (entry.publishing == 0) {
                        adopt(id, entry, Optional.ofNullable(states.get(id)));
                    }
                }
            }
            return null;
        });
    }

    private void failure(CarrierConfig carrier, String reason) {
        Optional<ProbeSettings> probe = carrier.probe();
        if (probe.isEmpty()) {
            return;
        }
        Entry entry = entry(carrier.id());
        CarrierState publish = null;
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            if (state.heldAt(now)) {
                return;
            }
            entry.oks = 0;
            entry.fails++;
            if (state.up() && entry.fails >= probe.get().downAfter()) {
                publish = new CarrierState(false, Origin.CHECKS, reason, now, Optional.empty(), instanceId);
                entry.view = publish;
                log.warn("carrier {} is down: {} ({} failures in a row)", carrier.id(), reason, entry.fails);
            } else if (!state.up()) {
                publish = state; // still down: renew the fleet's record of it
            }
        }
        if (publish != null) {
            publish(carrier.id(), Origin.CHECKS, publish, checksTtl(probe.get()));
        }
    }

    private void success(CarrierConfig carrier, ProbeSettings probe) {
        Entry entry = entry(carrier.id());
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            entry.fails = 0;
            if (state.up() || state.heldAt(now)) {
                entry.oks = 0;
                return;
            }
            if (++entry.oks < probe.upAfter()) {
                return;
            }
            entry.oks = 0;
            entry.view = CarrierState.up(now, "answered " + probe.upAfter() + " probes", instanceId);
            log.info("carrier {} is up again: it answered {} probes in a row", carrier.id(), probe.upAfter());
        }
        publish(carrier.id(), Origin.CHECKS, null, checksTtl(probe));
    }

    private CompletionStage<CarrierState> hold(String carrierId, boolean up, Origin origin, String reason,
                                               Duration duration) {
        Entry entry = entry(carrierId);
        CarrierState held;
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            if (state.heldAt(now) && state.origin().compareTo(origin) > 0) {
                return CompletableFuture.completedFuture(state);
            }
            held = new CarrierState(up, origin, reason, now, Optional.of(now.plus(duration)), instanceId);
            if (state.up() != up) {
                log.warn("carrier {} is {} for {} ms: {}", carrierId, up ? "up" : "down", duration.toMillis(), reason);
            }
            entry.view = held;
            entry.fails = 0;
            entry.oks = 0;
        }
        return publish(carrierId, origin, held, duration);
    }

    /** Publishes, then adopts what is in force fleet-wide (a stronger hold may have refused it). */
    private CompletionStage<CarrierState> publish(String carrierId, Origin origin, CarrierState state, Duration ttl) {
        Entry entry = entry(carrierId);
        synchronized (entry) {
            entry.publishing++;
        }
        return store.publish(carrierId, origin, state, ttl).handle((inForce, error) -> {
            synchronized (entry) {
                entry.publishing--;
                if (error != null) {
                    log.warn("carrier {} health not shared (redis unreachable): this gateway keeps its own view: {}",
                            carrierId, error.toString());
                } else {
                    adopt(carrierId, entry, inForce);
                }
                return current(entry, clock.instant());
            }
        });
    }

    /** Takes the fleet's state; {@code shared} empty means the carrier is plainly up. Called holding the entry. */
    private void adopt(String carrierId, Entry entry, Optional<CarrierState> shared) {
        CarrierState view = entry.view;
        if (shared.isPresent()) {
            if (!shared.get().equals(view)) {
                if (shared.get().up() != view.up()) {
                    log.info("carrier {} is {} ({} by {})", carrierId, shared.get().up() ? "up" : "down",
                            shared.get().reason(), shared.get().by());
                    entry.oks = 0;
                }
                entry.view = shared.get();
            }
        } else if (!view.up() || view.until().isPresent()) {
            entry.view = CarrierState.up(clock.instant(), "cleared in the fleet", view.by());
            entry.oks = 0;
            if (!view.up()) {
                log.info("carrier {} is up (cleared in the fleet)", carrierId);
            }
        }
    }

    /** The view, with a hold that ran out turned into up. Called holding the entry. */
    private static CarrierState current(Entry entry, Instant now) {
        CarrierState view = entry.view;
        if (view.until().isPresent() && !now.isBefore(view.until().get())) {
            entry.view = CarrierState.up(view.until().get(), "hold ended", view.by());
        }
        return entry.view;
    }

    private Entry entry(String carrierId) {
        return entries.computeIfAbsent(carrierId, id -> new Entry(CarrierState.up(clock.instant(), "start", instanceId)));
    }

    /**
     * How long what the checks found stays in Redis without being renewed: the prober renews it every interval,
     * and a successor takes over the lease after three.
     */
    static Duration checksTtl(ProbeSettings probe) {
        return probe.interval().multipliedBy(4).plus(probe.timeout());
    }
}
