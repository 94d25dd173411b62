package io.trunkgate.route;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.CarrierState;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.throttle.LogFields;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call's way through its carrier chain: each attempt is paced for its own carrier; a carrier over its
 * max-wait, or one that failed the call, hands it to the next candidate (as the reroute hook orders them).
 * A carrier that is down is passed over without an attempt. A carrier's URI names one address or more (RFC 3263,
 * {@link CarrierResolver}): a call tries them in the order of their SRV priorities and weights, leaving an
 * address that timed out or answered 503 for the carrier's next one (paced again, so the carrier's cps bounds all
 * its addresses together) before it leaves the carrier; addresses that are down are left out.
 * Not thread-safe for concurrent steps: the SIP layer drives one step of a call at a time.
 */
public final class CallRouting {

    private static final Logger log = LoggerFactory.getLogger(CallRouting.class);

    private final String callId;
    private final String number;
    private final RouteTable routes;
    private final CarrierPacer pacer;
    private final RerouteHook hook;
    private final CarrierHealth health;
    private final CarrierResolver resolver;
    private final List<String> remaining;
    /** The carrier of the current attempt, and its addresses this call has not tried yet, in order. */
    private CarrierConfig carrier;
    private final Deque<CarrierAddress> addressesLeft = new ArrayDeque<>();
    private CarrierAddress address;
    private final Set<String> tried = new LinkedHashSet<>();
    private final List<String> reroutes = new ArrayList<>();
    /** Carriers passed over because they were down, not yet written into {@link #reroutes}. */
    private final List<String> skipped = new ArrayList<>();
    private boolean skippedAny;
    /** Carriers whose host names did not resolve: tried, or passed over as down for it. */
    private final Set<String> unresolved = new LinkedHashSet<>();
    private Optional<Duration> shortestRetry = Optional.empty();
    private volatile HeldCall current;
    /** The first carrier's hold, on a slot reserved with the admission; until the call is paced for it. */
    private final AtomicReference<FirstHold> firstHold = new AtomicReference<>();
    private volatile boolean cancelled;

    /** A call held for a carrier before its routing started (its slot came with its admission). */
    public record FirstHold(CarrierConfig carrier, HeldCall held) {
    }

    public CallRouting(String callId, String number, RouteTable routes, CarrierPacer pacer, RerouteHook hook,
                       CarrierHealth health, CarrierResolver resolver) {
        this(callId, number, routes, routes.chain(number), pacer, hook, health, resolver);
    }

    /** With the number's carrier chain already looked up ({@link RouteTable#chain}). */
    public CallRouting(String callId, String number, RouteTable routes, List<CarrierConfig> chain, CarrierPacer pacer,
                       RerouteHook hook, CarrierHealth health, CarrierResolver resolver) {
        this.callId = callId;
        this.number = number;
        this.routes = routes;
        this.pacer = pacer;
        this.hook = hook;
        this.health = health;
        this.resolver = resolver;
        this.remaining = new ArrayList<>(chain.stream().map(CarrierConfig::id).toList());
    }

    /** Paces the call for the first carrier of its chain (or the next ones, if that one is full). */
    public CompletionStage<RoutingStep> start() {
        return attemptNext();
    }

    /**
     * As {@link #start()}, with the call already held for {@code first}: if that carrier is the one tried first,
     * that hold is its pacing; otherwise the hold is cancelled (its slot given back).
     */
    public CompletionStage<RoutingStep> start(FirstHold first) {
        firstHold.set(first);
        return attemptNext();
    }

    /** The carrier a call with this chain is paced for first, as {@link #start()} picks it: the first that is up. */
    public static Optional<CarrierConfig> firstCarrier(List<CarrierConfig> chain, CarrierHealth health) {
        return chain.stream().filter(c -> health.isUp(c.id())).findFirst();
    }

    /**
     * The carrier last sent to failed the call: on to its next address when it timed out or answered 503 (and is
     * still up), else to the next candidate.
     */
    public CompletionStage<RoutingStep> failover(RerouteReason reason, int responseCode) {
        String from = lastTried().orElseThrow(() -> new IllegalStateException("no carrier was tried yet"));
        addressesLeft.removeIf(next -> !health.isUp(carrier, next));
        if ((reason == RerouteReason.TIMEOUT || responseCode == 503) && !addressesLeft.isEmpty()
                && health.isUp(from)) {
            String detail = responseCode > 0 ? reason.label() + "(" + responseCode + ")" : reason.label();
            reroutes.add(from + "->" + from + ":" + detail);
            log.info("reroute call={} from={} address={} to next address {} reason={}",
                    LogFields.value(callId), from, address,
                    addressesLeft.peekFirst(), detail);
            return pace(carrier);
        }
        return leave(from, reason, responseCode);
    }

    /** The caller cancelled: a held call is never sent. Returns false if the call already left for a carrier. */
    public boolean cancel() {
        cancelled = true;
        dropFirstHold();
        HeldCall held = current;
        return held == null || held.cancel();
    }

    /** Carriers tried so far, in order. */
    public List<String> tried() {
        return List.copyOf(tried);
    }

    /**
     * Every reroute so far, as "from->to:reason"; a carrier skipped because it was down has reason carrier_down
     * (unresolved when its host name does not resolve).
     */
    public List<String> reroutes() {
        return List.copyOf(reroutes);
    }

    /** Whether some carrier of the chain was skipped because it was down. */
    public boolean skippedDown() {
        return skippedAny;
    }

    private CompletionStage<RoutingStep> attemptNext() {
        if (cancelled) {
            dropFirstHold();
            return CompletableFuture.completedFuture(new RoutingStep.Cancelled());
        }
        Optional<CarrierConfig> candidate = takeNext();
        if (candidate.isEmpty()) {
            dropFirstHold();
            return CompletableFuture.completedFuture(new RoutingStep.Exhausted(shortestRetry, List.copyOf(unresolved)));
        }
        CarrierConfig next = candidate.get();
        tried.add(next.id());
        return resolver.resolve(next.uri()).handle((targets, error) -> {
            if (error != null) {
                log.warn("call={} carrier {}: {}", LogFields.value(callId), next.id(), error.getMessage());
                unresolved.add(next.id());
                return leave(next.id(), RerouteReason.UNRESOLVED, 0);
            }
            carrier = next;
            addressesLeft.clear();
            List<CarrierAddress> ordered = targets.order(ThreadLocalRandom.current());
            ordered.stream().filter(a -> health.isUp(next, a)).forEach(addressesLeft::add);
            if (addressesLeft.isEmpty()) {
                addressesLeft.addAll(ordered); // its addresses went down just now: better tried than not
            }
            return pace(next);
        }).thenCompose(step -> step);
    }

    /** Paces the call for the carrier, then sends it to the carrier's next address. */
    private CompletionStage<RoutingStep> pace(CarrierConfig carrier) {
        FirstHold first = firstHold.getAndSet(null);
        HeldCall held;
        if (first != null && first.carrier().id().equals(carrier.id())) {
            held = first.held();
        } else {
            if (first != null) {
                first.held().cancel();
            }
            held = pacer.hold(carrier);
        }
        current = held;
        if (cancelled) {
            held.cancel();
        }
        return held.result().handle((result, error) -> {
            if (error != null) {
                return leave(carrier.id(), RerouteReason.PACER_UNAVAILABLE, 0);
            }
            return switch (result.status()) {
                case RELEASED -> {
                    address = addressesLeft.removeFirst();
                    yield CompletableFuture.<RoutingStep>completedFuture(
                            new RoutingStep.Send(carrier, address, result.delay(), result.shadow()));
                }
                case CANCELLED -> CompletableFuture.<RoutingStep>completedFuture(new RoutingStep.Cancelled());
                case OVER_MAX_WAIT -> {
                    noteRetry(result.delay().minus(carrier.maxWait()));
                    yield leave(carrier.id(), RerouteReason.OVER_MAX_WAIT, 0);
                }
                case AT_CAPACITY -> leave(carrier.id(), RerouteReason.AT_CAPACITY, 0);
                case HOLD_FULL -> {
                    noteRetry(carrier.maxWait().isZero() ? carrier.interval() : carrier.maxWait());
                    yield leave(carrier.id(), RerouteReason.HOLD_FULL, 0);
                }
            };
        }).thenCompose(step -> step);
    }

    private void dropFirstHold() {
        FirstHold first = firstHold.getAndSet(null);
        if (first != null) {
            first.held().cancel();
        }
    }

    private Optional<CarrierConfig> takeNext() {
        while (!remaining.isEmpty()) {
            String id = remaining.remove(0);
            Optional<CarrierConfig> carrier = routes.carrier(id);
            CarrierState state = carrier.isPresent() && !tried.contains(id) ? health.state(id) : null;
            if (state != null && !state.up()) {
                skipped.add(id);
                skippedAny = true;
                if (CarrierState.UNRESOLVED.equals(state.reason())) {
                    unresolved.add(id);
                }
            } else if (carrier.isPresent() && !tried.contains(id)) {
                noteSkipped(id);
                return carrier;
            }
            if (carrier.isEmpty()) {
                log.warn("call={} reroute hook named unknown carrier {}; skipped", LogFields.value(callId), id);
            }
        }
        noteSkipped("none");
        return Optional.empty();
    }

    private void noteSkipped(String to) {
        skipped.forEach(id -> reroutes.add(id + "->" + to + ":"
                + (unresolved.contains(id) ? RerouteReason.UNRESOLVED.label() : RerouteReason.CARRIER_DOWN)));
        skipped.clear();
    }

    /** Leaves {@code from} for the candidates the hook chooses (no thread waits for its answer), then the next. */
    private CompletionStage<RoutingStep> leave(String from, RerouteReason reason, int responseCode) {
        Set<String> down = routes.carrierIds().stream().filter(id -> !health.isUp(id)).collect(Collectors.toSet());
        return hook.rerouteAsync(new RerouteContext(callId, number, from, reason, responseCode,
                List.copyOf(tried), List.copyOf(remaining), down)).thenCompose(chosen -> {
                    follow(chosen, from, reason, responseCode);
                    return attemptNext();
                });
    }

    private void follow(List<String> chosen, String from, RerouteReason reason, int responseCode) {
        remaining.clear();
        chosen.stream().filter(id -> !tried.contains(id) && !remaining.contains(id)).forEach(remaining::add);
        String to = remaining.isEmpty() ? "none" : remaining.get(0);
        String detail = responseCode > 0 ? reason.label() + "(" + responseCode + ")" : reason.label();
        reroutes.add(from + "->" + to + ":" + detail);
        log.info("reroute call={} from={} to={} reason={}", LogFields.value(callId), from, to, detail);
    }

    private void noteRetry(Duration retry) {
        Duration positive = retry.isNegative() || retry.isZero() ? Duration.ofMillis(1) : retry;
        if (shortestRetry.isEmpty() || positive.compareTo(shortestRetry.get()) < 0) {
            shortestRetry = Optional.of(positive);
        }
    }

    private Optional<String> lastTried() {
        String last = null;
        for (String id : tried) {
            last = id;
        }
        return Optional.ofNullable(last);
    }
}
