package io.trunkgate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Statistic;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.trunkgate.tls.CertificateStatus;
import io.trunkgate.config.BuildInfo;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.health.CarrierDowns;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.pace.Reservation;
import io.trunkgate.records.CallRecord;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.route.RerouteReason;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;

/**
 * The gateway's meters, in one Micrometer registry scraped in the Prometheus text format (docs/metrics.md lists
 * them all). Components record through the methods here; every meter carries the tag {@code gateway} (the
 * instance id). Every counter has its series at 0 from the start for every label value known ahead (the
 * configured peers and carriers, the reasons each component declares), so rates and alerts work before the first
 * event. Also Micrometer's JVM and process meters, and {@code trunkgate_build_info}.
 */
public final class GatewayMetrics implements AutoCloseable {

    /** The {@code reason} of {@link #unknownSource()} in trunkgate_calls_rejected_total (its peer is empty). */
    public static final String UNKNOWN_SOURCE = "unknown_source";
    /** Outcomes of trunkgate_reroute_hook_requests_total (the HTTP reroute hook). */
    static final List<String> HOOK_OUTCOMES = List.of("ok", "timeout", "busy", "error", "bad_reply");
    /** What sets a carrier down, as trunkgate_carrier_downs_total's {@code by} spells it. */
    private static final List<String> CARRIER_DOWN_CAUSES = Stream.of(CarrierDowns.By.values())
            .map(CarrierDowns.By::label).toList();
    private static final List<String> REDIS_OPERATIONS = List.of("admit", "pace", "give-back");

    private static final Duration[] PACING_BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(5),
            Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100),
            Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(10)};
    private static final Duration[] SEND_BUCKETS = {Duration.ofNanos(500_000), Duration.ofMillis(1),
            Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
            Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(1)};
    private static final Duration[] REDIS_BUCKETS = {Duration.ofMillis(1), Duration.ofMillis(2),
            Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25), Duration.ofMillis(50),
            Duration.ofMillis(100), Duration.ofMillis(250)};

    private static final Set<String> METHODS = Set.of("INVITE", "ACK", "BYE", "CANCEL", "OPTIONS", "REGISTER",
            "UPDATE", "INFO", "PRACK", "REFER", "NOTIFY", "SUBSCRIBE", "MESSAGE", "PUBLISH");

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private LongSupplier shedAcks;
    /** The capture's counts, held here: Micrometer holds a function counter's object weakly. */
    private List<Object> captureCounts = List.of();
    private final MultiGauge heldCalls;
    private final MultiGauge carrierUp;
    private final MultiGauge carrierAddressUp;
    private final MultiGauge concurrentCalls;
    private final MultiGauge concurrentMax;
    /** Where counters and timers record: the scraped registry, or nowhere while the gateway warms up. */
    private volatile Events events = new Events(registry);
    private final JvmGcMetrics gc = new JvmGcMetrics();
    private final AnswerRatios answers;
    /** Label values known ahead, by what they label; see {@link #declareZeroSeries()}. */
    private volatile Collection<String> peers = List.of();
    private volatile Collection<String> carriers = List.of();
    private volatile Collection<String> shedReasons = List.of();
    private volatile Collection<String> rejectionReasons = List.of();
    private volatile Collection<String> credentialPeers = List.of();
    private volatile Collection<String> authFailures = List.of();

    /** New calls shed, by peer and reason: counted in the scraped registry even while the gateway warms up. */
    private final Bound<Bound<Counter>> shed = new Bound<>(peer -> new Bound<>(reason -> shedCounter(peer, reason)));

    /**
     * A registry for counters and timers, with the meters of each label value (method, reason, peer, carrier,
     * Redis operation) bound in it at their first event: an event then costs a map lookup or two, where a builder
     * and a lookup in the registry per event cost allocations and time on the call's thread. A peer or carrier a
     * reload adds is bound at its first call (its series declared at 0 at the reload, {@link #configured}).
     */
    private static final class Events {
        final MeterRegistry registry;
        final Bound<Counter> requests;
        final Bound<Counter> refused;
        final Bound<Counter> dropped;
        final Bound<Counter> absorbed;
        final Bound<Counter> admitted;
        final Bound<Bound<Counter>> rejected;
        final Bound<Bound<Counter>> wouldRefuse;
        final Bound<Timer> pacingDelay;
        final Bound<Timer> shadowPacingDelay;
        final Bound<Timer> admissionToSend;
        final Bound<Bound<Counter>> reroutes;
        final Bound<Counter> hookOutcomes;
        final Bound<Timer> redisLatency;
        final Bound<Counter> redisErrors;
        final Bound<Counter> authChallenges;
        final Bound<Bound<Counter>> authFailures;

        Events(MeterRegistry in) {
            registry = in;
            requests = new Bound<>(method -> requestCounter(in, method));
            refused = new Bound<>(reason -> refusedCounter(in, reason));
            dropped = new Bound<>(reason -> droppedCounter(in, reason));
            absorbed = new Bound<>(reason -> absorbedCounter(in, reason));
            admitted = new Bound<>(peer -> admittedCounter(in, peer));
            rejected = new Bound<>(peer -> new Bound<>(reason -> rejectedCounter(in, peer, reason)));
            wouldRefuse = new Bound<>(peer -> new Bound<>(limit -> wouldRefuseCounter(in, peer, limit)));
            pacingDelay = new Bound<>(carrier -> pacingDelay(in, carrier));
            shadowPacingDelay = new Bound<>(carrier -> shadowPacingDelay(in, carrier));
            admissionToSend = new Bound<>(carrier -> admissionToSend(in, carrier));
            reroutes = new Bound<>(carrier -> new Bound<>(reason -> rerouteCounter(in, carrier, reason)));
            hookOutcomes = new Bound<>(outcome -> hookCounter(in, outcome));
            redisLatency = new Bound<>(op -> redisLatency(op, in));
            redisErrors = new Bound<>(op -> redisErrors(op, in));
            authChallenges = new Bound<>(reason -> challengeCounter(in, reason));
            authFailures = new Bound<>(peer -> new Bound<>(reason -> authFailureCounter(in, peer, reason)));
        }
    }

    public GatewayMetrics(String instanceId) {
        this(instanceId, BuildInfo.current());
    }

    public GatewayMetrics(String instanceId, BuildInfo build) {
        this(instanceId, build, Clock.systemUTC());
    }

    /** {@code clock} times the status page's window of answer ratios. */
    public GatewayMetrics(String instanceId, BuildInfo build, Clock clock) {
        answers = new AnswerRatios(clock, registry);
        registry.config().commonTags("gateway", instanceId);
        // Micrometer counts the process's CPU time in ns (process_cpu_time_ns_total); Prometheus' convention, and
        // its client libraries, count it in seconds as process_cpu_seconds_total
        registry.config().meterFilter(MeterFilter.deny(id -> id.getName().equals("process.cpu.time")));
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            FunctionCounter.builder("process.cpu", os, bean -> bean.getProcessCpuTime() / 1e9).baseUnit("seconds")
                    .description("CPU time used by the gateway's process").register(registry);
        }
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        Gauge.builder("trunkgate.build.info", () -> 1)
                .description("Always 1: the version and commit of the running build")
                .tags("version", build.version(), "commit", build.commit()).register(registry);
        heldCalls = MultiGauge.builder("trunkgate.pacing.held.calls")
                .description("Calls this gateway holds for the carrier's next slot right now")
                .register(registry);
        carrierUp = MultiGauge.builder("trunkgate.carrier.up")
                .description("1 while the carrier is up, 0 while it is down (skipped by routing)")
                .register(registry);
        carrierAddressUp = MultiGauge.builder("trunkgate.carrier.address.up")
                .description("1 while the address (of a carrier named by a host name) is up, 0 while it is down")
                .register(registry);
        concurrentCalls = MultiGauge.builder("trunkgate.concurrent.calls")
                .description("Calls in progress fleet-wide against a max-concurrent cap (leases in Redis), by scope")
                .register(registry);
        concurrentMax = MultiGauge.builder("trunkgate.concurrent.max")
                .description("The max-concurrent cap of the scope")
                .register(registry);
        // at zero from the start, so dashboards and alerts have the series before the first event
        REDIS_OPERATIONS.forEach(op -> {
            redisErrors(op, registry);
            redisLatency(op, registry);
        });
        METHODS.forEach(events.requests::get);
        events.requests.get("other");
        reloadRefusedCounter();
        rejectedCounter(registry, "", UNKNOWN_SOURCE);
    }

    /**
     * Until {@link #ready()}, counters and timers record nothing: the calls and Redis scripts of the start-up
     * warm-up are not traffic. Shed calls still count (a warm-up call is never shed: they are real peers').
     * Gauges are unaffected. A Micrometer composite registry with no registries in it makes every meter a no-op.
     * The series declared at 0 are in the scraped registry throughout.
     */
    public void warmingUp() {
        events = new Events(new CompositeMeterRegistry());
    }

    /** Counters and timers record from now on. */
    public void ready() {
        events = new Events(registry);
    }

    /** Stops the meters that listen to the JVM (garbage collections). */
    @Override
    public void close() {
        gc.close();
    }

    /**
     * The configured peers and carriers (at start and after every reload): their counters and timers get their
     * series at 0. Series of peers or carriers removed stay until the restart.
     */
    public void configured(Collection<String> peerIds, Collection<String> carrierIds) {
        this.peers = List.copyOf(peerIds);
        this.carriers = List.copyOf(carrierIds);
        declareZeroSeries();
    }

    /**
     * The reasons the SIP layer counts: why calls are rejected at admission or shed, requests refused or
     * absorbed, responses dropped.
     */
    public void sipReasons(Collection<String> rejected, Collection<String> shed, Collection<String> requestsRefused,
                           Collection<String> requestsAbsorbed, Collection<String> responsesDropped) {
        this.rejectionReasons = List.copyOf(rejected);
        this.shedReasons = List.copyOf(shed);
        requestsRefused.forEach(reason -> refusedCounter(registry, reason));
        requestsAbsorbed.forEach(reason -> absorbedCounter(registry, reason));
        responsesDropped.forEach(reason -> droppedCounter(registry, reason));
        declareZeroSeries();
    }

    /**
     * Why the SIP layer challenges INVITEs ({@code challenges}) and refuses credentials ({@code failures}); the
     * failures of credentials that name no peer (an unknown user, say) count with an empty peer.
     */
    public void authReasons(Collection<String> challenges, Collection<String> failures) {
        challenges.forEach(reason -> challengeCounter(registry, reason));
        this.authFailures = List.copyOf(failures);
        failures.forEach(reason -> authFailureCounter(registry, "", reason));
        declareZeroSeries();
    }

    /** The peers with digest credentials (at start and after every reload): their failures' series at 0. */
    public void credentialPeers(Collection<String> peerIds) {
        this.credentialPeers = List.copyOf(peerIds);
        declareZeroSeries();
    }

    /** The HTTP reroute hook is in use: its outcomes' series at 0. */
    public void rerouteHookInUse() {
        HOOK_OUTCOMES.forEach(outcome -> hookCounter(registry, outcome));
    }

    private synchronized void declareZeroSeries() {
        for (String peer : peers) {
            answers.declarePeer(peer);
            admittedCounter(registry, peer);
            rejectionReasons.forEach(reason -> rejectedCounter(registry, peer, reason));
            shedReasons.forEach(shed.get(peer)::get);
        }
        for (String peer : credentialPeers) {
            authFailures.forEach(reason -> authFailureCounter(registry, peer, reason));
        }
        for (String carrier : carriers) {
            answers.declareCarrier(carrier);
            CARRIER_DOWN_CAUSES.forEach(by -> downsCounter(registry, carrier, by));
            pacingDelay(registry, carrier);
            admissionToSend(registry, carrier);
            for (RerouteReason reason : RerouteReason.values()) {
                rerouteCounter(registry, carrier, reason.label());
            }
        }
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return registry.scrape();
    }

    /** The counts of every meter named {@code name} (counters, or timers' events), summed by the tag {@code tag}. */
    public Map<String, Double> countsBy(String name, String tag) {
        Map<String, Double> counts = new HashMap<>();
        for (Meter meter : registry.find(name).meters()) {
            for (Measurement measurement : meter.measure()) {
                if (measurement.getStatistic() == Statistic.COUNT) {
                    counts.merge(meter.getId().getTag(tag), measurement.getValue(), Double::sum);
                }
            }
        }
        return counts;
    }

    /** Content-Type of {@link #scrape()}. */
    public static String contentType() {
        return "text/plain; version=0.0.4; charset=utf-8";
    }

    /** One SIP request the stack delivered to the proxy; methods not in RFC 3261 and its extensions count as "other". */
    public void requestReceived(String method) {
        events.requests.get(METHODS.contains(method) ? method : "other").increment();
    }

    private static Counter requestCounter(MeterRegistry in, String method) {
        return Counter.builder("trunkgate.sip.requests")
                .description("SIP requests received (retransmissions the stack absorbs excluded), by method")
                .tag("method", method).register(in);
    }

    /**
     * One request refused before it was relayed: {@code reason} names the rule (an unknown dialog, a sender
     * that is not a party to it, a route elsewhere, a request too large...).
     */
    public void requestRefused(String reason) {
        events.refused.get(reason).increment();
    }

    private static Counter refusedCounter(MeterRegistry in, String reason) {
        return Counter.builder("trunkgate.sip.requests.refused")
                .description("SIP requests refused or absorbed instead of relayed, by reason")
                .tag("reason", reason).register(in);
    }

    /** One response dropped instead of relayed ({@code reason}: no transaction, not our Via, unknown dialog...). */
    public void responseDropped(String reason) {
        events.dropped.get(reason).increment();
    }

    private static Counter droppedCounter(MeterRegistry in, String reason) {
        return Counter.builder("trunkgate.sip.responses.dropped")
                .description("SIP responses no transaction or dialog of the gateway accounts for, dropped")
                .tag("reason", reason).register(in);
    }

    /** A retransmitted request the gateway dropped itself, its transaction being over (e.g. an answered INVITE). */
    public void requestAbsorbed(String reason) {
        events.absorbed.get(reason).increment();
    }

    private static Counter absorbedCounter(MeterRegistry in, String reason) {
        return Counter.builder("trunkgate.sip.requests.absorbed")
                .description("Requests already answered (a copy of an answered INVITE, the ACK of a refusal), dropped")
                .tag("reason", reason).register(in);
    }

    /** SIP transactions the stack remembers: in progress, or finished and lingering for retransmissions. */
    public void trackTransactions(IntSupplier transactions) {
        Gauge.builder("trunkgate.sip.stack.transactions", transactions::getAsInt)
                .description("SIP transactions in progress or finished and kept for retransmissions (sip.transaction-linger)")
                .register(registry);
    }

    /** Dialogs the gateway admitted and remembers, whose requests it relays. */
    public void trackDialogs(IntSupplier dialogs) {
        Gauge.builder("trunkgate.sip.dialogs", dialogs::getAsInt)
                .description("Dialogs the gateway admitted and still relays requests for")
                .register(registry);
    }

    /** One call that got its admission decision and was let in (its final status may still be a failure). */
    public void callAdmitted(String peer) {
        events.admitted.get(peer).increment();
    }

    private static Counter admittedCounter(MeterRegistry in, String peer) {
        return Counter.builder("trunkgate.calls.admitted").description("Calls admitted, by peer")
                .tag("peer", peer).register(in);
    }

    /**
     * One call refused at admission. {@code reason}: {@code limited}, {@code blocked}, {@code too_heavy},
     * {@code concurrent}, {@code merged} (the fleet admitted the same call already) or {@code redis_unavailable}
     * (the Redis-down policy refused it).
     */
    public void callRejected(String peer, String reason) {
        events.rejected.get(peer).get(reason).increment();
    }

    /**
     * One call that the shadow limit or cap {@code limit} ("peer:acme 10/1000ms", "group:g max-concurrent") would
     * have refused had it been enforced, whether or not an enforced one refused it.
     */
    public void callWouldRefuse(String peer, String limit) {
        events.wouldRefuse.get(peer).get(limit).increment();
    }

    private static Counter wouldRefuseCounter(MeterRegistry in, String peer, String limit) {
        return Counter.builder("trunkgate.calls.would.refuse")
                .description("Calls a shadow limit or cap would have refused, by peer and limit")
                .tags("peer", peer, "limit", limit).register(in);
    }

    /** How many calls of {@code peer} the shadow limit or cap {@code limit} would have refused since the start. */
    public long wouldRefused(String peer, String limit) {
        Counter counter = registry.find("trunkgate.calls.would.refuse").tags("peer", peer, "limit", limit).counter();
        return counter == null ? 0 : (long) counter.count();
    }

    /**
     * The shadow limits and caps of each peer (at start and after every reload): their series at 0. Series of
     * limits removed or enforced since stay until the restart.
     */
    public synchronized void shadowLimits(Map<String, List<String>> byPeer) {
        byPeer.forEach((peer, limits) -> limits.forEach(limit -> wouldRefuseCounter(registry, peer, limit)));
    }

    /**
     * One INVITE from a source no peer matches, refused (answered or dropped as admission.unknown-peer-code says):
     * counted every time, with an empty peer and the reason {@value #UNKNOWN_SOURCE}.
     */
    public void unknownSource() {
        events.rejected.get("").get(UNKNOWN_SOURCE).increment();
    }

    private static Counter rejectedCounter(MeterRegistry in, String peer, String reason) {
        return Counter.builder("trunkgate.calls.rejected")
                .description("Calls refused: at admission, by peer and reason; from unknown sources (reason"
                        + " unknown_source, no peer)")
                .tags("peer", peer, "reason", reason).register(in);
    }

    /** A 407 sent to an INVITE, challenging it for a peer's digest credentials, for {@code reason}. */
    public void authChallenged(String reason) {
        events.authChallenges.get(reason).increment();
    }

    private static Counter challengeCounter(MeterRegistry in, String reason) {
        return Counter.builder("trunkgate.auth.challenges")
                .description("INVITEs answered 407 to ask for a peer's digest credentials, by reason")
                .tag("reason", reason).register(in);
    }

    /** Credentials refused: for {@code peer}, the one they name ("" when none), for {@code reason}. */
    public void authFailed(String peer, String reason) {
        events.authFailures.get(peer).get(reason).increment();
    }

    private static Counter authFailureCounter(MeterRegistry in, String peer, String reason) {
        return Counter.builder("trunkgate.auth.failures")
                .description("Digest credentials refused, by the peer they name and reason")
                .tags("peer", peer, "reason", reason).register(in);
    }

    /**
     * One new INVITE refused before admission because the gateway is shutting down or overloaded;
     * {@code reason}: {@code shutting_down}, {@code calls_in_progress}, {@code overload}, {@code call_rate} or
     * {@code dialogs}.
     */
    public void callShed(String peer, String reason) {
        shed.get(peer).get(reason).increment();
    }

    private Counter shedCounter(String peer, String reason) {
        return Counter.builder("trunkgate.calls.shed")
                .description("New calls answered 503 at once: starting, shutdown or overload")
                .tags("peer", peer, "reason", reason).register(registry);
    }

    /**
     * A call's INVITE ended: {@code record} as at its answer or its final failure. Its attempts count for their
     * carriers' answer ratios, the call for its peer's (docs/metrics.md); not while the gateway warms up.
     */
    public void callSetUp(CallRecord record) {
        if (events.registry == registry) {
            answers.count(record);
        }
    }

    /**
     * This gateway set the carrier (or one of its addresses) down, {@code by}: {@code checks}, {@code calls},
     * {@code retry_after} or {@code operator}.
     */
    public void carrierDown(String carrier, String by) {
        downsCounter(events.registry, carrier, by).increment();
    }

    private static Counter downsCounter(MeterRegistry in, String carrier, String by) {
        return Counter.builder("trunkgate.carrier.downs")
                .description("Times this gateway set the carrier, or one of its addresses, down, by what set it")
                .tags("carrier", carrier, "by", by).register(in);
    }

    /** Answer ratios over the last minutes, for the status page. */
    public AnswerRatios answers() {
        return answers;
    }

    /** One call sent to a carrier after being held {@code held} in total for pacing slots. */
    public void callSent(String carrier, Duration held) {
        events.pacingDelay.get(carrier).record(held);
    }

    /**
     * A call sent at once to a carrier whose pacing is in shadow: how long enforced pacing would have held it (over
     * the carrier's max-wait: the call would have gone to the next carrier instead).
     */
    public void shadowPacingDelay(String carrier, Duration wouldWait) {
        events.shadowPacingDelay.get(carrier).record(wouldWait);
    }

    private static Timer shadowPacingDelay(MeterRegistry in, String carrier) {
        return Timer.builder("trunkgate.pacing.shadow.delay")
                .description("Time a call sent at once would have been held by the carrier's pacing, were it enforced")
                .tag("carrier", carrier).serviceLevelObjectives(PACING_BUCKETS).register(in);
    }

    private static Timer pacingDelay(MeterRegistry in, String carrier) {
        return Timer.builder("trunkgate.pacing.delay")
                .description("Time a call was held for pacing, by the carrier it was finally sent to")
                .tag("carrier", carrier).serviceLevelObjectives(PACING_BUCKETS).register(in);
    }

    /**
     * The time from a call's admission verdict to its INVITE leaving for its first carrier, less the pacing wait
     * its slot prescribed: what the gateway's own work and queues add between the limiter and the wire.
     */
    public void admissionToSend(String carrier, Duration overhead) {
        events.admissionToSend.get(carrier).record(overhead);
    }

    private static Timer admissionToSend(MeterRegistry in, String carrier) {
        return Timer.builder("trunkgate.admission.to.send")
                .description("Admission verdict to the INVITE sent to the first carrier, less the pacing wait")
                .tag("carrier", carrier).serviceLevelObjectives(SEND_BUCKETS).register(in);
    }

    /**
     * When the certificate each TLS listener ("tls 10.0.0.5:5061") presents expires, as Unix time, with the file it
     * is read from; read at each scrape, so a renewed certificate shows at once.
     */
    public void trackCertificateExpiry(Map<String, Supplier<CertificateStatus>> byListener) {
        byListener.forEach((listener, status) -> Gauge.builder("trunkgate.tls.certificate.expiry",
                        () -> status.get().notAfter().getEpochSecond())
                .baseUnit("seconds")
                .description("When the TLS listener's certificate expires (its notAfter), as Unix time")
                .tags("listener", listener, "certificate", status.get().certificate().toString())
                .register(registry));
    }

    /** Tracks the held calls of exactly these carriers (called at start and on every config change). */
    public void trackCarriers(Collection<String> carrierIds, ToIntFunction<String> heldCount) {
        heldCalls.register(carrierIds.stream()
                .map(id -> MultiGauge.Row.of(Tags.of("carrier", id), () -> heldCount.applyAsInt(id)))
                .toList(), true);
    }

    /** 1 while the carrier is up, 0 while it is down (as this gateway sees it), for exactly these carriers. */
    public void trackCarrierHealth(Collection<String> carrierIds, Predicate<String> up) {
        carrierUp.register(carrierIds.stream()
                .map(id -> MultiGauge.Row.of(Tags.of("carrier", id), () -> up.test(id) ? 1 : 0))
                .toList(), true);
    }

    /**
     * Whether each address of each carrier named by a host name is up ({@code address} as "ip:port/transport"),
     * as last sampled; addresses no longer resolved disappear.
     */
    public void carrierAddresses(Map<String, Map<String, Boolean>> upByCarrier) {
        carrierAddressUp.register(upByCarrier.entrySet().stream()
                .flatMap(carrier -> carrier.getValue().entrySet().stream().map(address -> MultiGauge.Row.of(
                        Tags.of("carrier", carrier.getKey(), "address", address.getKey()),
                        address.getValue() ? 1 : 0)))
                .toList(), true);
    }

    /**
     * The latest fleet-wide count of calls in progress of each capped scope ("peer:acme", "group:wholesale",
     * "carrier:carrier-a"): {calls, max}. Scopes no longer capped disappear.
     */
    public void concurrentCalls(Map<String, long[]> byScope) {
        concurrentCalls.register(byScope.entrySet().stream()
                .map(e -> MultiGauge.Row.of(Tags.of("scope", e.getKey()), e.getValue()[0])).toList(), true);
        concurrentMax.register(byScope.entrySet().stream()
                .map(e -> MultiGauge.Row.of(Tags.of("scope", e.getKey()), e.getValue()[1])).toList(), true);
    }

    /** Calls this gateway holds leases for, and lease releases waiting for Redis to come back. */
    public void trackLeases(IntSupplier held, IntSupplier pendingReleases) {
        Gauge.builder("trunkgate.leases.held", held::getAsInt)
                .description("Calls this gateway holds concurrent-call leases for")
                .register(registry);
        Gauge.builder("trunkgate.leases.pending.releases", pendingReleases::getAsInt)
                .description("Lease releases that failed (Redis out of reach) and will be retried")
                .register(registry);
    }

    /** Whether admission and pacing decisions come from Redis (1) or from the Redis-down policies (0). */
    public void trackRedisAvailable(java.util.function.BooleanSupplier available) {
        Gauge.builder("trunkgate.redis.available", () -> available.getAsBoolean() ? 1 : 0)
                .description("1 while decisions come from Redis, 0 while its circuit breaker is open (the"
                        + " admission.redis-down policy decides)")
                .register(registry);
    }

    /** INVITE server transactions in flight: received and not yet answered finally. */
    public void trackInvitesInFlight(IntSupplier inFlight) {
        Gauge.builder("trunkgate.sip.transactions.in.flight", inFlight::getAsInt)
                .description("INVITE server transactions not yet answered with a final response")
                .register(registry);
    }

    /** The standing wait of received messages, in the UDP socket and for the call's loop (the overload signal). */
    public void trackQueueDelay(LongSupplier standingWaitMs) {
        Gauge.builder("trunkgate.sip.queue.delay", () -> standingWaitMs.getAsLong() / 1000.0)
                .description("Shortest wait of received messages over the last 100 ms: in the UDP socket, then for the"
                        + " call's SIP loop")
                .baseUnit("seconds").register(registry);
    }

    /** The busiest SIP loop's busy share over the last second (NaN where it cannot be read). */
    public void trackLoopBusy(DoubleSupplier share) {
        Gauge.builder("trunkgate.sip.loop.busy", share::getAsDouble)
                .description("Share of the last second the busiest SIP loop was busy: running, or ready and waiting for"
                        + " a core")
                .baseUnit("ratio").register(registry);
    }

    /** The new calls a second let in since an overload (0: not limited). */
    public void trackNewCallLimit(DoubleSupplier perSecond) {
        Gauge.builder("trunkgate.sip.new.calls.limit", perSecond::getAsDouble)
                .description("New calls a second let in since the gateway was overloaded; 0 while not limited")
                .register(registry);
    }

    /** ACKs of the 503s sent to shed calls, absorbed before the stack parsed them. */
    public void trackShedAcks(LongSupplier absorbed) {
        shedAcks = absorbed; // Micrometer holds a function counter's object weakly
        FunctionCounter.builder("trunkgate.sip.shed.acks", absorbed, LongSupplier::getAsLong)
                .description("ACKs of 503s to shed calls, absorbed as they arrived (never parsed or relayed)")
                .register(registry);
    }

    /**
     * SIP capture to a Homer collector, when configured: messages sent, messages dropped by reason, whether a link to
     * the collector is open, and messages waiting.
     */
    public void trackCapture(LongSupplier sent, Map<String, LongSupplier> droppedByReason, BooleanSupplier connected,
                             IntSupplier queued) {
        captureCounts = List.of(sent, Map.copyOf(droppedByReason));
        FunctionCounter.builder("trunkgate.capture.messages", sent, LongSupplier::getAsLong)
                .description("SIP messages sent to the capture collector (HEP)").register(registry);
        droppedByReason.forEach((reason, dropped) ->
                FunctionCounter.builder("trunkgate.capture.dropped", dropped, LongSupplier::getAsLong).tag("reason", reason)
                        .description("SIP messages not sent to the capture collector, by reason").register(registry));
        Gauge.builder("trunkgate.capture.connected", () -> connected.getAsBoolean() ? 1 : 0)
                .description("1 while a link to the capture collector is open, 0 while it is being connected to")
                .register(registry);
        Gauge.builder("trunkgate.capture.queued", queued::getAsInt)
                .description("SIP messages waiting to be sent to the capture collector").register(registry);
    }

    /** The active config generation. */
    public void trackConfigGeneration(IntSupplier generation) {
        Gauge.builder("trunkgate.config.generation", generation::getAsInt)
                .description("Generation of the active configuration (1 at start, +1 per applied reload)")
                .register(registry);
    }

    /** One reload refused because the changed configuration did not validate. */
    public void reloadRefused() {
        reloadRefusedCounter().increment();
    }

    private Counter reloadRefusedCounter() {
        return Counter.builder("trunkgate.config.reload.refused")
                .description("Configuration reloads refused (the previous configuration kept running)")
                .register(registry);
    }

    /** Times the calls an admission limiter makes to Redis and counts their failures. */
    public AdmissionLimiter timed(AdmissionLimiter limiter) {
        return request -> timeRedis("admit", () -> limiter.admit(request));
    }

    /** Times the slot reservations of a reserver in Redis and counts their failures. */
    public SlotReserver timed(SlotReserver reserver) {
        return new SlotReserver() {
            @Override
            public CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
                return timeRedis("pace", () -> reserver.reserve(carrier, maxWait));
            }

            @Override
            public CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
                return timeRedis("give-back", () -> reserver.giveBack(carrier, reservation));
            }
        };
    }

    /** Counts reroutes by the carrier left and the reason, then lets {@code hook} decide. */
    public RerouteHook counting(RerouteHook hook) {
        return new RerouteHook() {
            @Override
            public List<String> reroute(RerouteContext context) {
                count(context);
                return hook.reroute(context);
            }

            @Override
            public CompletionStage<List<String>> rerouteAsync(RerouteContext context) {
                count(context);
                return hook.rerouteAsync(context);
            }

            private void count(RerouteContext context) {
                events.reroutes.get(context.fromCarrier()).get(context.reason().label()).increment();
            }
        };
    }

    private static Counter rerouteCounter(MeterRegistry in, String carrier, String reason) {
        return Counter.builder("trunkgate.reroutes")
                .description("Calls moved to another carrier, by carrier left and reason")
                .tags("carrier", carrier, "reason", reason).register(in);
    }

    /** One request to the HTTP reroute hook: {@code ok}, or why the configured chain was used instead. */
    public void rerouteHookOutcome(String outcome) {
        events.hookOutcomes.get(outcome).increment();
    }

    private static Counter hookCounter(MeterRegistry in, String outcome) {
        return Counter.builder("trunkgate.reroute.hook.requests")
                .description("Requests to the HTTP reroute hook, by outcome (ok, timeout, busy, error, bad_reply)")
                .tag("outcome", outcome).register(in);
    }

    private <T> CompletionStage<T> timeRedis(String operation, Supplier<CompletionStage<T>> call) {
        long start = System.nanoTime();
        return call.get().whenComplete((result, error) -> {
            Events recording = events;
            recording.redisLatency.get(operation).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            if (error != null) {
                recording.redisErrors.get(operation).increment();
            }
        });
    }

    private static Timer redisLatency(String operation, MeterRegistry in) {
        return Timer.builder("trunkgate.redis.latency").description("Latency of the gateway's Redis script calls")
                .tag("op", operation).serviceLevelObjectives(REDIS_BUCKETS).register(in);
    }

    private static Counter redisErrors(String operation, MeterRegistry in) {
        return Counter.builder("trunkgate.redis.errors").description("Redis script calls that failed or timed out")
                .tag("op", operation).register(in);
    }
}
