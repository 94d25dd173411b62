package io.trunkgate.gateway;

import io.trunkgate.admin.AdminApi;
import io.trunkgate.admin.AdminServer;
import io.trunkgate.admin.Draining;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.GroupConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.RerouteSettings;
import io.trunkgate.config.SipLimits;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.FleetHealth;
import io.trunkgate.history.HistorySampler;
import io.trunkgate.history.TrafficHistory;
import io.trunkgate.limit.Admission;
import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.limit.Scope;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.Pacing;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.records.CallRecordWriter;
import io.trunkgate.redis.RedisGuard;
import io.trunkgate.redis.RedisRuntime;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.route.RerouteHooks;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.runtime.ConfigReloader;
import io.trunkgate.sip.CallRegistry;
import io.trunkgate.sip.DialogTable;
import io.trunkgate.sip.OptionsProber;
import io.trunkgate.sip.ProxyServices;
import io.trunkgate.sip.SipMessages;
import io.trunkgate.sip.SipProxy;
import io.trunkgate.sip.SipStackFactory;
import io.trunkgate.sip.transport.QueueDelay;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import javax.sip.SipProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: Redis, admission, pacing, carrier health, the SIP proxy, metrics, the admin server and live reload,
 * started and stopped together.
 */
public final class Gateway implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Gateway.class);
    /** After the drain, how long calls still ringing get to end once cancelled. */
    private static final Duration CANCEL_GRACE = Duration.ofSeconds(2);
    private static final long DRAIN_CHECK_MS = 100;
    private static final Duration RELOAD_POLL = Duration.ofSeconds(1);
    private static final Duration WARM_UP_BUDGET = Duration.ofSeconds(3);
    private static final long DIALOG_SWEEP_SECONDS = 10;
    private static final int HISTORY_SECONDS = 600;
    private static final long CONCURRENCY_SAMPLE_SECONDS = 5;
    private static final long ADDRESS_SAMPLE_SECONDS = 1;

    private final AtomicReference<ActiveConfig> active;
    private final RedisRuntime redis;
    private final RedisGuard guard;
    private final Pacing pacing;
    private final Admission admission;
    private final GatewayThreads threads;
    private final ScheduledExecutorService timers;
    private final SipStackFactory.Stack sip;
    private final CallRegistry calls;
    private final DialogTable dialogs;
    private final CallRecordWriter records;
    private final SipProxy proxy;
    private final AtomicBoolean draining = new AtomicBoolean();
    private final AtomicBoolean closing = new AtomicBoolean();
    private final CompletableFuture<Void> drained = new CompletableFuture<>();
    private final GatewayMetrics metrics;
    private final ConfigReloader reloader;
    private final FleetHealth health;
    private final CarrierResolver resolver;
    private AdminServer admin;

    private Gateway(AtomicReference<ActiveConfig> active, RedisRuntime redis, RedisGuard guard, Pacing pacing,
                    Admission admission, GatewayThreads threads, SipStackFactory.Stack sip, CallRegistry calls, DialogTable dialogs, CallRecordWriter records,
                    SipProxy proxy, GatewayMetrics metrics, FleetHealth health, CarrierResolver resolver) {
        this.active = active;
        this.redis = redis;
        this.guard = guard;
        this.pacing = pacing;
        this.admission = admission;
        this.threads = threads;
        this.timers = threads.sipTimers();
        this.sip = sip;
        this.calls = calls;
        this.dialogs = dialogs;
        this.records = records;
        this.proxy = proxy;
        this.metrics = metrics;
        this.health = health;
        this.resolver = resolver;
        this.reloader = new ConfigReloader(active.get().config().source(), this::apply,
                () -> activeConfig().generation(), metrics::reloadRefused, RELOAD_POLL, threads.configReload());
    }

    public static Gateway start(GatewayConfig config) throws Exception {
        return start(config, System::nanoTime);
    }

    /**
     * Starts a gateway whose SIP proxy refills its shedding budgets (sip.max-new-calls-per-second, the stateless
     * answers per source) by {@code proxyClock} instead of {@link System#nanoTime}: a test moves it to say when.
     */
    public static Gateway start(GatewayConfig config, LongSupplier proxyClock) throws Exception {
        AtomicReference<ActiveConfig> active = new AtomicReference<>(new ActiveConfig(config, 1));
        GatewayThreads threads = new GatewayThreads();
        RedisRuntime redis;
        try {
            redis = RedisRuntime.open(config.redis().connection(), threads.redisIo());
        } catch (RuntimeException e) {
            threads.close();
            throw e;
        }
        String prefix = config.redis().keyPrefix();
        GatewayMetrics metrics = new GatewayMetrics(config.instanceId());
        // Nothing the start-up's own Redis scripts and warm-up calls do is counted: they are not traffic.
        metrics.warmingUp();
        RedisGuard guard = RedisGuard.withTimeout(config.redis().timeout(), threads.redisTimeouts(),
                threads.redisResults(), threads::afterPendingRedisReads);
        LongSupplier wallMicros = () -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        Pacing pacing = Pacing.of(redis.client(), prefix, guard, config.fleetSize(),
                () -> active.get().config().admission().redisDown(), wallMicros, metrics::timed,
                threads.pacerTimer());
        ScheduledExecutorService timers = threads.sipTimers();
        Gateway gateway;
        CallRecordWriter records = null;
        try {
            RerouteHook hook = metrics.counting(rerouteHook(config, metrics, threads));
            CarrierResolver resolver = CarrierResolver.open(config.dns(), Clock.systemUTC());
            resolveAhead(resolver, config);
            FleetHealth health = FleetHealth.open(redis.client(), prefix, config.instanceId(), Clock.systemUTC(),
                    () -> active.get().config().carriers(), resolver);
            SipStackFactory.Stack sip = SipStackFactory.create("trunkgate-" + config.instanceId(), config.sip());
            CallRegistry calls = new CallRegistry();
            SipLimits limits = config.sip().limits();
            String warmUpId = WarmUp.id(config);
            records = CallRecordWriter.open(config.records(), config.instanceId(), r -> !warmUpId.equals(r.peer()));
            CallRecordWriter writer = records;
            AtomicReference<DialogTable> dialogTable = new AtomicReference<>();
            Admission admission = Admission.of(redis.client(), prefix, guard, config.fleetSize(), wallMicros,
                    metrics::timed, new Admission.Leasing(config.instanceId(), config.admission().leaseTime(),
                            () -> liveCallKeys(calls, dialogTable.get())));
            // An answered call's leases go when its dialog ends (BYE, timeout, shutdown), as its record is written.
            DialogTable dialogs = new DialogTable(limits.dialogTimeout(), limits.maxCallLength(), limits.linger(),
                    limits.maxDialogs(), System::nanoTime,
                    (callKey, record) -> {
                        admission.leases().release(callKey);
                        writer.write(record);
                    });
            dialogTable.set(dialogs);
            admission.leases().start(timers);
            timers.scheduleWithFixedDelay(dialogs::sweep, DIALOG_SWEEP_SECONDS, DIALOG_SWEEP_SECONDS, TimeUnit.SECONDS);
            metrics.trackDialogs(dialogs::live);
            RedisWarmUp.run(config.instanceId(), admission.fleetWide(), pacing.fleetWide(), WARM_UP_BUDGET);
            Function<CarrierConfig, Optional<SlotRequest>> firstSlots = config.redis().mode().oneNode()
                    ? carrier -> Optional.of(pacing.slotRequest(carrier)) : carrier -> Optional.empty();
            ProxyServices services = new ProxyServices(active::get, admission, pacing.pacer(), firstSlots,
                    () -> hook, timers, new SipMessages(), sip.providers(), calls, dialogs, records, metrics, health, resolver);
            SipProxy proxy = new SipProxy(services, sip.queueDelay(), proxyClock);
            timers.execute(() -> probeSocketsNow(sip.queueDelay(), timers));
            Optional<WarmUp.Plan> warmUp = warmUpPlan(config);
            // Before the proxy hears anything: JAIN-SIP's listening points receive from their creation, not from
            // the stack's start, so from the first datagram INVITEs and OPTIONS of others must hear 503.
            warmUp.ifPresent(plan -> proxy.warmingUp(plan.address(), active.get()));
            if (warmUp.isEmpty()) {
                metrics.ready();
            }
            for (SipProvider provider : sip.providers()) {
                provider.addSipListener(proxy);
            }
            sip.strayResponses().deliverTo(proxy::processStrayResponse);
            sip.newCalls().deliverTo(proxy);
            metrics.trackShedAcks(sip.newCalls()::acksAbsorbed);
            sip.stack().start();
            health.startChecks(new OptionsProber(services), timers);
            config.sip().listeners().forEach(l -> log.info("listening on {}:{}/{}", l.host(), l.port(), l.transport()));
            if (warmUp.isPresent()) {
                warmUp(warmUp.get(), config, proxy, active, calls, dialogs, metrics);
            }
            gateway = new Gateway(active, redis, guard, pacing, admission, threads, sip, calls, dialogs, records, proxy,
                    metrics, health, resolver);
        } catch (Exception e) {
            if (records != null) {
                records.close();
            }
            pacing.close();
            redis.close();
            threads.close();
            metrics.close();
            throw e;
        }
        return gateway.startOperations();
    }

    /** Probes the UDP listeners' sockets, and again when {@link QueueDelay#probeSockets()} says, until shutdown. */
    private static void probeSocketsNow(QueueDelay delay, ScheduledExecutorService timers) {
        try {
            Duration next = delay.probeSockets();
            timers.schedule(() -> probeSocketsNow(delay, timers), next.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutdown) {
            // the timers are stopped: the gateway is closing
        }
    }

    /** Looks the carriers' host names up now, so that their first calls find the answers waiting. */
    private static void resolveAhead(CarrierResolver resolver, GatewayConfig config) {
        config.carriers().values().forEach(carrier -> resolver.resolve(carrier.uri()));
    }

    /** The HTTP hook when routing.reroute-url is set, else a class (from plugins-dir or the class path). */
    private static RerouteHook rerouteHook(GatewayConfig config, GatewayMetrics metrics, GatewayThreads threads) {
        RerouteSettings reroute = config.reroute();
        if (reroute.url().isPresent()) {
            metrics.rerouteHookInUse();
            return RerouteHooks.http(reroute.url().get(), reroute.timeout(), reroute.maxConcurrent(),
                    metrics::rerouteHookOutcome, threads.rerouteHttp(), threads.sipTimers());
        }
        ClassLoader loader = reroute.pluginsDir().map(RerouteHooks::plugins).orElse(Gateway.class.getClassLoader());
        RerouteHook hook = RerouteHooks.load(config.rerouteHook(), loader);
        log.info("reroute hook: {}", hook == RerouteHook.CONFIGURED_CHAIN ? "the configured chain"
                : hook.getClass().getName());
        return hook;
    }

    /**
     * Calls through the gateway's own listener until its call path is compiled (see {@link WarmUp}), then the real
     * configuration; the admin server, and with it a ready /health, come after.
     */
    private static Optional<WarmUp.Plan> warmUpPlan(GatewayConfig config) throws Exception {
        if (config.sip().warmUp().calls() == 0) {
            return Optional.empty();
        }
        Optional<WarmUp.Plan> plan = WarmUp.plan(config);
        if (plan.isEmpty()) {
            log.warn("warm-up skipped: it needs a UDP listener on IPv4 and a 127.255.255.x address no peer claims");
        }
        return plan;
    }

    private static void warmUp(WarmUp.Plan plan, GatewayConfig config, SipProxy proxy,
                               AtomicReference<ActiveConfig> active, CallRegistry calls, DialogTable dialogs,
                               GatewayMetrics metrics) throws Exception {
        try {
            WarmUp.run(plan, config, config.sip().warmUp(), warm -> active.set(ActiveConfig.warmUp(warm)));
        } finally {
            active.set(new ActiveConfig(config, 1));
            // Only warm-up calls are up now (others heard 503). What the warm-up left, calls its max-time cut or a
            // BYE lost, ends here: its caller and carrier are gone, and a drain would wait for those dialogs.
            calls.abortHeld();
            dialogs.endAll("warm_up_over");
            metrics.ready();
            proxy.ready();
        }
    }

    /** Metrics, the admin server and live reload; on failure the gateway is closed again. */
    private Gateway startOperations() throws Exception {
        try {
            metrics.trackInvitesInFlight(calls::size);
            metrics.trackLeases(admission.leases()::held, admission.leases()::pendingReleases);
            metrics.trackRedisAvailable(guard::isAvailable);
            timers.scheduleWithFixedDelay(new ConcurrencySampler(this::activeConfig, admission.leases(), metrics),
                    0, CONCURRENCY_SAMPLE_SECONDS, TimeUnit.SECONDS);
            metrics.trackQueueDelay(sip.queueDelay()::standingWaitMs);
            metrics.trackNewCallLimit(sip.queueDelay()::newCallsPerSecondLimit);
            metrics.trackTransactions(sip::transactions);
            metrics.trackConfigGeneration(() -> (int) activeConfig().generation());
            metrics.trackCarriers(activeConfig().config().carriers().keySet(), pacer()::heldCount);
            metrics.trackCarrierHealth(activeConfig().config().carriers().keySet(), health::isUp);
            metrics.configured(activeConfig().config().peers().keySet(), activeConfig().config().carriers().keySet());
            timers.scheduleWithFixedDelay(this::sampleCarrierAddresses, 0, ADDRESS_SAMPLE_SECONDS, TimeUnit.SECONDS);
            GatewayConfig config = activeConfig().config();
            TrafficHistory history = new TrafficHistory(HISTORY_SECONDS);
            timers.scheduleAtFixedRate(new HistorySampler(history, () -> activeConfig().config(), metrics,
                    pacer()::heldCount, pacing::nextSlotWait, System::currentTimeMillis), 1, 1, TimeUnit.SECONDS);
            AdminApi api = new AdminApi(this::activeConfig, calls::size, redis.client(), admission.blocks(),
                    admission.usage(), admission.leases(), pacer(), pacing::nextSlotWait, metrics, reloader, history, health,
                    new Draining() {
                        @Override
                        public void start() {
                            drain();
                        }

                        @Override
                        public boolean draining() {
                            return draining.get();
                        }

                        @Override
                        public int callsInProgress() {
                            return Gateway.this.callsInProgress();
                        }
                    });
            admin = AdminServer.start(config.admin(), api, () -> activeConfig().config().admin().token(),
                    threads.adminHttp());
            if (config.admin().token().isEmpty()) {
                log.warn("no admin.token (TRUNKGATE_ADMIN_TOKEN unset or empty): the admin API's changes (blocks,"
                        + " carrier holds, reload, drain) are refused with 403; reads, /metrics and /health work");
            }
            return this;
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    /** The address metric follows DNS, so its series are sampled rather than registered once. Never throws. */
    private void sampleCarrierAddresses() {
        try {
            Map<String, Map<String, Boolean>> byCarrier = new TreeMap<>();
            for (CarrierConfig carrier : activeConfig().config().carriers().values()) {
                Map<String, Boolean> addresses = new TreeMap<>();
                health.addresses(carrier).forEach((address, state) -> addresses.put(address.label(), state.up()));
                if (!addresses.isEmpty()) {
                    byCarrier.put(carrier.id(), addresses);
                }
            }
            metrics.carrierAddresses(byCarrier);
        } catch (RuntimeException e) {
            log.warn("carrier address metrics not sampled: {}", e.toString());
        }
    }

    public ActiveConfig activeConfig() {
        return active.get();
    }

    /** Swaps in a new, already validated configuration; calls under way keep the one they started with. */
    public void apply(GatewayConfig config) throws ConfigException {
        ActiveConfig previous = active.get();
        if (previous.config().admin().token().isPresent() && config.admin().token().isEmpty()) {
            // Most likely a file cut short; live, it would silently open nothing and lock operators out.
            throw new ConfigException(List.of(new ConfigError(config.source(), 0, "admin.token",
                    "the running gateway has an admin token and this configuration has none (a truncated"
                            + " file?); removing the token takes a restart")));
        }
        ActiveConfig next = active.updateAndGet(current -> new ActiveConfig(config, current.generation() + 1));
        metrics.trackCarriers(config.carriers().keySet(), pacer()::heldCount);
        metrics.trackCarrierHealth(config.carriers().keySet(), health::isUp);
        metrics.configured(config.peers().keySet(), config.carriers().keySet());
        carryOverMovedPeers(previous.config(), config);
        resolveAhead(resolver, config);
        if (!restartSettings(previous.config()).equals(restartSettings(config))) {
            log.warn("changes to instance-id, fleet-size, plugins-dir, routing.*, records, dns, sip listeners, threads,"
                    + " queue, limits and tcp, admission.lease-time, redis and the admin server (all but its token)"
                    + " take effect at the next restart");
        }
        log.info("config generation {} active", next.generation());
    }

    /**
     * A peer's keys carry its group's hash tag: when a reload moves it into, out of or between groups, its
     * windows, dedupe set, block and lease set are carried over to the new tag, so the fleet neither forgets nor
     * doubles its calls, and its calls in progress keep counting against its max-concurrent.
     */
    private void carryOverMovedPeers(GatewayConfig before, GatewayConfig after) {
        for (PeerConfig peer : after.peers().values()) {
            PeerConfig old = before.peers().get(peer.id());
            if (old != null && !old.group().equals(peer.group())) {
                admission.movePeer(Scope.peer(old.id(), old.limits()), groupScope(before, old.group()),
                                groupScope(after, peer.group()))
                        .whenComplete((done, error) -> {
                            if (error != null) {
                                log.warn("peer {} moved from group {} to {}: its windows and leases were not carried"
                                                + " over: {}",
                                        peer.id(), old.group().orElse("-"), peer.group().orElse("-"), error.toString());
                            }
                        });
            }
        }
    }

    private static Optional<Scope> groupScope(GatewayConfig config, Optional<String> groupId) {
        return groupId.map(id -> Scope.group(id, Optional.ofNullable(config.groups().get(id))
                .map(GroupConfig::limits).orElse(List.of())));
    }

    /**
     * What only a restart changes: what the parts built at start were given (the fleet share of the in-memory
     * fallbacks, the reroute hook, the records file, the SIP stack, Redis, the admin server's address and limits).
     */
    private static List<Object> restartSettings(GatewayConfig config) {
        return List.of(config.instanceId(), config.fleetSize(), config.rerouteHook(), config.reroute(), config.records(),
                config.dns(),
                config.sip().listeners(), config.sip().workerThreads(),
                config.sip().queueTimeout(), config.sip().limits(), config.sip().tcp(), config.redis(),
                config.admission().leaseTime(),
                config.admin().host(), config.admin().port(), config.admin().requestTimeout(),
                config.admin().maxConnections(), config.admin().maxConnectionsPerAddress());
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    /**
     * Closes the call records file and opens its path again: after logrotate (or anything) moved it away, records
     * go to a new file there (the run command does this on SIGHUP).
     */
    public void reopenRecords() {
        records.reopen();
    }

    public ConfigReloader reloader() {
        return reloader;
    }

    /** Where the admin HTTP server listens (its port when admin.port picked a free one). */
    public InetSocketAddress adminAddress() {
        return admin.address();
    }

    public BlockRegistry blocks() {
        return admission.blocks();
    }

    public RedisRuntime redis() {
        return redis;
    }

    /** Whether decisions currently come from Redis (circuit CLOSED) or from the Redis-down policy. */
    public RedisGuard redisGuard() {
        return guard;
    }

    public CarrierPacer pacer() {
        return pacing.pacer();
    }

    /** Which carriers are up, as this gateway sees them. */
    public CarrierHealth health() {
        return health;
    }

    public CallRegistry calls() {
        return calls;
    }

    /**
     * Starts the graceful drain (idempotent; SIGTERM and POST /api/drain): new INVITEs get 503, calls still
     * being admitted or held get 503 at once, calls at a carrier and established calls go on, their in-dialog
     * requests relayed as usual. Completes when the last call has ended or {@code shutdown.drain-timeout} passed.
     */
    public CompletableFuture<Void> drain() {
        if (draining.compareAndSet(false, true)) {
            Duration timeout = activeConfig().config().sip().drainTimeout();
            log.info("draining: new calls refused; {} calls in progress get up to {} ms to end", callsInProgress(),
                    timeout.toMillis());
            proxy.drain();
            calls.abortHeld();
            CompletableFuture<Void> ended = once(() -> callsInProgress() == 0);
            ended.thenRun(() -> drained.complete(null));
            ScheduledFuture<?> deadline = timers.schedule(() -> {
                if (drained.complete(null)) {
                    log.info("drain timeout: {} calls still in progress are ended", callsInProgress());
                }
            }, timeout.toMillis(), TimeUnit.MILLISECONDS);
            drained.whenComplete((done, error) -> {
                ended.cancel(false);
                deadline.cancel(false);
            });
        }
        return drained;
    }

    /** Ends the drain now (a second SIGTERM): close() goes on without waiting for calls. */
    public void endDrain() {
        drain();
        drained.complete(null);
    }

    /** Calls not yet ended: INVITEs still being admitted or held, and dialogs (ringing or established). */
    public int callsInProgress() {
        return calls.notForwarded() + dialogs.live();
    }

    /**
     * Drains (see {@link #drain()}), then cancels what still rings, and stops: the admin server last but one
     * (so /health says "draining" to the end), then SIP, the timers and Redis (and the embedded redis-server).
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            drain().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.warn("drain failed: {}", e.getCause().toString());
        }
        reloader.close();
        calls.abortAll();
        awaitNoInvites(CANCEL_GRACE);
        if (admin != null) {
            admin.close();
        }
        health.close();
        sip.stop();
        dialogs.endAll("shutdown");
        admission.leases().close(CANCEL_GRACE);
        records.close();
        pacing.close();
        redis.close();
        threads.close();
        metrics.close();
        log.info("gateway stopped");
    }

    /** The identities of the calls in progress here: INVITEs not finally answered, and dialogs not ended. */
    private static Set<String> liveCallKeys(CallRegistry calls, DialogTable dialogs) {
        Set<String> keys = new HashSet<>(calls.callKeys());
        if (dialogs != null) {
            keys.addAll(dialogs.liveCallKeys());
        }
        return keys;
    }

    /** Waits, on the timers, for the cancelled INVITEs to be answered; at most {@code grace}. */
    private void awaitNoInvites(Duration grace) {
        CompletableFuture<Void> none = once(() -> calls.size() == 0);
        try {
            none.get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.info("{} INVITEs still unanswered at shutdown", calls.size());
        } finally {
            none.cancel(false);
        }
    }

    /**
     * Completes once {@code condition} holds, checked on the timers every {@value #DRAIN_CHECK_MS} ms; cancelling
     * it stops the checks.
     */
    private CompletableFuture<Void> once(BooleanSupplier condition) {
        CompletableFuture<Void> holds = new CompletableFuture<>();
        ScheduledFuture<?> check = timers.scheduleWithFixedDelay(() -> {
            if (condition.getAsBoolean()) {
                holds.complete(null);
            }
        }, 0, DRAIN_CHECK_MS, TimeUnit.MILLISECONDS);
        holds.whenComplete((done, error) -> check.cancel(false));
        return holds;
    }
}
