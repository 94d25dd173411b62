package io.trunkgate.health.internal;

import io.trunkgate.config.CallFailures;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.dns.CarrierTargets;
import io.trunkgate.health.Caller;
import io.trunkgate.health.CarrierDowns;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.CarrierState;
import io.trunkgate.health.CarrierState.Origin;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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
 * any carrier down for that long once it is the carrier's own state and not one destination's or one caller's:
 * when such answers came, within {@link #RETRY_AFTER_WINDOW}, to calls of {@link #RETRY_AFTER_QUORUM} different
 * peers for as many different numbers ({@link RetryAfterEvidence}); until then it is a plain 503. An operator's
 * hold outranks it, and either outranks what the checks find.
 *
 * <p>Every carrier's calls count too ({@code call-failures}): calls timed out or answered a listed code, {@code
 * down-after} in a row, set the carrier (or address) down fleet-wide for {@code down-for}, a down with an end;
 * then calls go to it again and the first one that fails sets it down again at once. Probes, for a carrier that
 * has them, may bring it back sooner.
 *
 * <p>A carrier named by a host name is checked address by address (each address its own {@link Subject}, counted
 * and shared the same way); what the checks find for the carrier is then derived: down when every address it
 * resolves to is down. Holds stay the carrier's. A carrier whose host name does not resolve (and no earlier answer
 * is used) is down, reason {@link CarrierState#UNRESOLVED}, until it does. A carrier named by an IP address is its
 * one address.
 */
public final class HealthBook implements CarrierHealth {

    private static final Logger log = LoggerFactory.getLogger(HealthBook.class);

    private final RedisHealthStore store;
    private final String instanceId;
    private final Clock clock;
    private final Supplier<Map<String, CarrierConfig>> carriers;
    private final CarrierResolver resolver;
    private final CarrierDowns downs;
    private final Map<Subject, Entry> entries = new ConcurrentHashMap<>();
    private final Map<String, RetryAfterEvidence> retryAfters = new ConcurrentHashMap<>();

    /** Different peers, and different numbers, whose calls a carrier must refuse with Retry-After to be held down. */
    public static final int RETRY_AFTER_QUORUM = 3;
    /** How long a call's 503 with Retry-After counts towards the quorum. */
    public static final Duration RETRY_AFTER_WINDOW = Duration.ofSeconds(60);

    /** One carrier or address: the state in force as this gateway sees it, and its check counts. */
    private static final class Entry {
        CarrierState view;
        int fails;
        int oks;
        /** Calls in a row that failed (call-failures), counted for every carrier. */
        int callFails;
        /** Up again after its calls set it down: the next failed call sets it down at once. */
        boolean retrying;
        /** Publications not yet answered: a refresh read before them must not undo them. */
        int publishing;

        Entry(CarrierState view) {
            this.view = view;
        }
    }

    public HealthBook(RedisHealthStore store, String instanceId, Clock clock,
                      Supplier<Map<String, CarrierConfig>> carriers, CarrierResolver resolver) {
        this(store, instanceId, clock, carriers, resolver, CarrierDowns.NONE);
    }

    /** {@code downs} is told of each down this book sets. */
    public HealthBook(RedisHealthStore store, String instanceId, Clock clock,
                      Supplier<Map<String, CarrierConfig>> carriers, CarrierResolver resolver, CarrierDowns downs) {
        this.downs = downs;
        this.store = store;
        this.instanceId = instanceId;
        this.clock = clock;
        this.carriers = carriers;
        this.resolver = resolver;
    }

    @Override
    public CarrierState state(String carrierId) {
        Instant now = clock.instant();
        CarrierState own;
        Entry entry = entry(Subject.carrier(carrierId));
        synchronized (entry) {
            own = current(entry, now);
        }
        CarrierConfig carrier = carriers.get().get(carrierId);
        if (!own.up() || carrier == null || carrier.uri().hostIsAddress()) {
            return own;
        }
        // no address to send to, whatever else holds: down (even held up by an operator)
        Optional<Instant> unresolved = resolver.unresolvedSince(carrier.uri());
        if (unresolved.isPresent()) {
            return new CarrierState(false, Origin.CHECKS, CarrierState.UNRESOLVED, unresolved.get(), Optional.empty(),
                    instanceId);
        }
        if (own.heldAt(now)) {
            return own;
        }
        Map<CarrierAddress, CarrierState> addresses = addresses(carrier);
        if (addresses.isEmpty() || addresses.values().stream().anyMatch(CarrierState::up)) {
            return own;
        }
        CarrierState last = addresses.values().stream().max(java.util.Comparator.comparing(CarrierState::since))
                .orElseThrow();
        return new CarrierState(false, Origin.CHECKS, "every address down (last: " + last.reason() + ")",
                last.since(), Optional.empty(), last.by());
    }

    @Override
    public boolean isUp(CarrierConfig carrier, CarrierAddress address) {
        if (carrier.uri().hostIsAddress()) {
            return true; // the carrier's own state decides
        }
        Instant now = clock.instant();
        Entry own = entry(Subject.carrier(carrier.id()));
        synchronized (own) {
            CarrierState state = current(own, now);
            if (state.up() && state.heldAt(now)) {
                return true; // held up by an operator, whatever its addresses did
            }
        }
        Entry entry = entry(Subject.address(carrier.id(), address));
        synchronized (entry) {
            return current(entry, now).up();
        }
    }

    @Override
    public Map<CarrierAddress, CarrierState> addresses(CarrierConfig carrier) {
        Map<CarrierAddress, CarrierState> states = new LinkedHashMap<>();
        if (carrier.uri().hostIsAddress()) {
            return states;
        }
        Instant now = clock.instant();
        for (CarrierAddress address : knownAddresses(carrier)) {
            Entry entry = entry(Subject.address(carrier.id(), address));
            synchronized (entry) {
                states.put(address, current(entry, now));
            }
        }
        return states;
    }

    @Override
    public void answered(CarrierConfig carrier, CarrierAddress address, int status, Optional<Duration> retryAfter,
                         Caller caller) {
        if (status == 503 && retryAfter.filter(d -> d.toMillis() > 0).isPresent()
                && retryAfters.computeIfAbsent(carrier.id(), id -> new RetryAfterEvidence(RETRY_AFTER_QUORUM,
                        RETRY_AFTER_WINDOW)).confirms(caller, clock.instant())) {
            hold(carrier.id(), false, Origin.CARRIER, "503 Retry-After " + retryAfter.get().toSeconds() + "s to "
                    + RETRY_AFTER_QUORUM + " peers' calls", retryAfter.get());
            return;
        }
        if (status == 503) {
            failure(carrier, subject(carrier, address), "503");
        } else if (carrier.probe().isPresent()) {
            Entry entry = entry(subject(carrier, address));
            synchronized (entry) {
                entry.fails = 0;
            }
        }
        if (status == 503 && retryAfter.isPresent()) {
            return; // weighed as evidence above: one refused destination must not count as a failed carrier
        }
        if (carrier.callFailures().failsOn(status)) {
            callFailed(carrier, subject(carrier, address), "answered " + status);
        } else {
            Entry entry = entry(subject(carrier, address));
            synchronized (entry) {
                current(entry, clock.instant()); // a down-for that ran out ends first: this answer ends the retry
                entry.callFails = 0;
                entry.retrying = false;
            }
        }
    }

    @Override
    public void timedOut(CarrierConfig carrier, CarrierAddress address) {
        failure(carrier, subject(carrier, address), "timeout");
        callFailed(carrier, subject(carrier, address), "timed out");
    }

    /**
     * A call failed (call-failures): {@code down-after} in a row, or the first after the carrier came back from
     * such a down, set the carrier (or address) down fleet-wide for {@code down-for}; then calls try it again.
     */
    private void callFailed(CarrierConfig carrier, Subject subject, String reason) {
        CallFailures rule = carrier.callFailures();
        if (!rule.enabled()) {
            return;
        }
        Entry entry = entry(subject);
        CarrierState down;
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            if (!state.up() || state.heldAt(now)) {
                return;
            }
            entry.callFails++;
            if (!entry.retrying && entry.callFails < rule.downAfter()) {
                return;
            }
            String why = entry.retrying ? "tried again after " + rule.downFor().toSeconds() + "s: call " + reason
                    : entry.callFails + " calls in a row " + reason;
            down = new CarrierState(false, Origin.CHECKS, why, now, Optional.of(now.plus(rule.downFor())), instanceId);
            entry.view = down;
            entry.callFails = 0;
            entry.retrying = false;
            log.warn("{} is down for {} s: {}", subject, rule.downFor().toSeconds(), why);
        }
        downs.down(subject.carrierId(), CarrierDowns.By.CALLS);
        publish(subject, Origin.CHECKS, down, rule.downFor());
    }

    /**
     * A probe's result at one of the carrier's addresses: the status of its final response, 0 for none in time.
     * Completes when what it changed is published in Redis.
     */
    CompletionStage<?> probed(CarrierConfig carrier, CarrierAddress address, int status) {
        ProbeSettings probe = carrier.probe().orElseThrow();
        if (status == 0 || probe.failCodes().contains(status)) {
            return failure(carrier, subject(carrier, address),
                    status == 0 ? "probe unanswered" : "probe answered " + status);
        }
        return success(carrier, subject(carrier, address), probe);
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
        Subject subject = Subject.carrier(carrier.id());
        Entry entry = entry(subject);
        synchronized (entry) {
            entry.view = CarrierState.up(clock.instant(), "set up by an operator", instanceId);
            entry.fails = 0;
            entry.oks = 0;
            entry.callFails = 0;
            entry.retrying = false;
        }
        return publish(subject, Origin.OPERATOR, null, Duration.ofMillis(1));
    }

    /**
     * Takes in the states the fleet published for every configured carrier and every address known of those
     * named by a host name; on failure the view stays as is.
     */
    public CompletionStage<Void> refresh() {
        List<Subject> subjects = new ArrayList<>();
        for (CarrierConfig carrier : carriers.get().values()) {
            subjects.add(Subject.carrier(carrier.id()));
            if (!carrier.uri().hostIsAddress()) {
                knownAddresses(carrier).forEach(address -> subjects.add(Subject.address(carrier.id(), address)));
            }
        }
        if (subjects.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        return store.read(subjects).handle((states, error) -> {
            if (error != null) {
                log.debug("carrier health not read from redis: {}", error.toString());
                return null;
            }
            for (Subject subject : subjects) {
                Entry entry = entry(subject);
                synchronized (entry) {
                    if (entry.publishing == 0) {
                        adopt(subject, entry, Optional.ofNullable(states.get(subject)));
                    }
                }
            }
            return null;
        });
    }

    /** The carrier itself for one named by an IP address, else the address. */
    private static Subject subject(CarrierConfig carrier, CarrierAddress address) {
        return carrier.uri().hostIsAddress() ? Subject.carrier(carrier.id()) : Subject.address(carrier.id(), address);
    }

    private List<CarrierAddress> knownAddresses(CarrierConfig carrier) {
        return resolver.known(carrier.uri()).map(CarrierTargets::addresses).orElse(List.of());
    }

    private CompletionStage<?> failure(CarrierConfig carrier, Subject subject, String reason) {
        Optional<ProbeSettings> probe = carrier.probe();
        if (probe.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Entry entry = entry(subject);
        CarrierState publish = null;
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            if (state.heldAt(now)) {
                return CompletableFuture.completedFuture(null);
            }
            entry.oks = 0;
            entry.fails++;
            if (state.up() && entry.fails >= probe.get().downAfter()) {
                publish = new CarrierState(false, Origin.CHECKS, reason, now, Optional.empty(), instanceId);
                entry.view = publish;
                log.warn("{} is down: {} ({} failures in a row)", subject, reason, entry.fails);
                downs.down(subject.carrierId(), CarrierDowns.By.CHECKS);
            } else if (!state.up()) {
                publish = state; // still down: renew the fleet's record of it
            }
        }
        if (publish == null) {
            return CompletableFuture.completedFuture(null);
        }
        // a down its calls set keeps its record in Redis until its end, however often a probe renews it
        Duration ttl = checksTtl(probe.get());
        Duration left = publish.until().map(until -> Duration.between(clock.instant(), until)).orElse(Duration.ZERO);
        return publish(subject, Origin.CHECKS, publish, left.compareTo(ttl) > 0 ? left : ttl);
    }

    private CompletionStage<?> success(CarrierConfig carrier, Subject subject, ProbeSettings probe) {
        Entry entry = entry(subject);
        synchronized (entry) {
            Instant now = clock.instant();
            CarrierState state = current(entry, now);
            entry.fails = 0;
            if (state.up() || state.heldAt(now)) {
                entry.oks = 0;
                return CompletableFuture.completedFuture(null);
            }
            if (++entry.oks < probe.upAfter()) {
                return CompletableFuture.completedFuture(null);
            }
            entry.oks = 0;
            entry.view = CarrierState.up(now, "answered " + probe.upAfter() + " probes", instanceId);
            log.info("{} is up again: it answered {} probes in a row", subject, probe.upAfter());
        }
        return publish(subject, Origin.CHECKS, null, checksTtl(probe));
    }

    private CompletionStage<CarrierState> hold(String carrierId, boolean up, Origin origin, String reason,
                                               Duration duration) {
        Subject subject = Subject.carrier(carrierId);
        Entry entry = entry(subject);
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
                if (!up) {
                    downs.down(carrierId, origin == Origin.OPERATOR ? CarrierDowns.By.OPERATOR
                            : CarrierDowns.By.RETRY_AFTER);
                }
            }
            entry.view = held;
            entry.fails = 0;
            entry.oks = 0;
        }
        return publish(subject, origin, held, duration);
    }

    /** Publishes, then adopts what is in force fleet-wide (a stronger hold may have refused it). */
    private CompletionStage<CarrierState> publish(Subject subject, Origin origin, CarrierState state, Duration ttl) {
        Entry entry = entry(subject);
        synchronized (entry) {
            entry.publishing++;
        }
        return store.publish(subject, origin, state, ttl).handle((inForce, error) -> {
            synchronized (entry) {
                entry.publishing--;
                if (error != null) {
                    log.warn("{} health not shared (redis unreachable): this gateway keeps its own view: {}",
                            subject, error.toString());
                } else {
                    adopt(subject, entry, inForce);
                }
                return current(entry, clock.instant());
            }
        });
    }

    /** Takes the fleet's state; {@code shared} empty means plainly up. Called holding the entry. */
    private void adopt(Subject subject, Entry entry, Optional<CarrierState> shared) {
        CarrierState view = entry.view;
        if (shared.isPresent()) {
            if (!shared.get().equals(view)) {
                if (shared.get().up() != view.up()) {
                    log.info("{} is {} ({} by {})", subject, shared.get().up() ? "up" : "down",
                            shared.get().reason(), shared.get().by());
                    entry.oks = 0;
                }
                entry.view = shared.get();
            }
        } else if (!view.up() || view.until().isPresent()) {
            entry.view = CarrierState.up(clock.instant(), "cleared in the fleet", view.by());
            entry.oks = 0;
            entry.retrying = setDownByCalls(view);
            if (!view.up()) {
                log.info("{} is up (cleared in the fleet)", subject);
            }
        }
    }

    /**
     * The view, with a hold that ran out turned into up (a down its calls set: up to be tried again). Called
     * holding the entry.
     */
    private static CarrierState current(Entry entry, Instant now) {
        CarrierState view = entry.view;
        if (view.until().isPresent() && !now.isBefore(view.until().get())) {
            boolean byCalls = setDownByCalls(view);
            entry.view = CarrierState.up(view.until().get(), byCalls ? "down-for over: calls try it again"
                    : "hold ended", view.by());
            entry.retrying = byCalls;
            entry.callFails = 0;
        }
        return entry.view;
    }

    /** A down of the checks with an end: only failed calls (call-failures) set one. */
    private static boolean setDownByCalls(CarrierState state) {
        return !state.up() && state.origin() == Origin.CHECKS && state.until().isPresent();
    }

    private Entry entry(Subject subject) {
        return entries.computeIfAbsent(subject, s -> new Entry(CarrierState.up(clock.instant(), "start", instanceId)));
    }

    /**
     * How long what the checks found stays in Redis without being renewed: the prober renews it every interval,
     * and a successor takes over the lease after three.
     */
    static Duration checksTtl(ProbeSettings probe) {
        return probe.interval().multipliedBy(4).plus(probe.timeout());
    }
}
