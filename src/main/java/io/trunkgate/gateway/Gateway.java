package io.trunkgate.gateway;

import io.trunkgate.admin.AdminApi;
import io.trunkgate.admin.AdminServer;
import io.trunkgate.admin.LiveCalls;
import io.trunkgate.auth.DigestAuthentication;
import io.trunkgate.capture.Capture;
import io.trunkgate.capture.HepCapture;
import io.trunkgate.config.AdminTokenFile;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.RerouteSettings;
import io.trunkgate.config.SipLimits;
import io.trunkgate.config.SipSettings;
import io.trunkgate.dns.CarrierResolver;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.FleetHealth;
import io.trunkgate.history.HistorySampler;
import io.trunkgate.history.TrafficHistory;
import io.trunkgate.limit.Admission;
import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.Pacing;
import io.trunkgate.pace.SlotRequest;
import io.trunkgate.records.CallRecordWriter;
import io.trunkgate.records.LiveCall;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.redis.RedisRuntime;
import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.route.RerouteHooks;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.runtime.ConfigReloader;
import io.trunkgate.sip.CallRegistry;
import io.trunkgate.sip.DialogTable;
import io.trunkgate.tls.SipTls;
import io.trunkgate.sip.OperatorCalls;
import io.trunkgate.sip.OptionsProber;
import io.trunkgate.sip.ProxyServices;
import io.trunkgate.sip.SipMessages;
import io.trunkgate.sip.SipProxy;
import io.trunkgate.sip.StartingGate;
import io.trunkgate.sip.transaction.TransactionTimers;
import io.trunkgate.sip.transport.Inbound;
import io.trunkgate.sip.transport.SipTransports;
import io.trunkgate.sip.wire.NewCallGate;
import io.trunkgate.warmup.RedisWarmUp;
import io.trunkgate.warmup.WarmUp;
import java.net.InetSocketAddress;
import java.nio.file.Path;
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
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.LongSupplier;
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
    private static final Duration RELOAD_POLL = Duration.ofSeconds(1);
    private static final Duration WARM_UP_BUDGET = Duration.ofSeconds(3);
    private static final long DIALOG_SWEEP_SECONDS = 10;
    private static final int HISTORY_SECONDS = 600;
    private static final long CONCURRENCY_SAMPLE_SECONDS = 5;
    private static final long ADDRESS_SAMPLE_SECONDS = 1;

    private final AtomicReference<ActiveConfig> active;
    private final RedisRuntime redis;
    private final RedisBreaker breaker;
    private final Pacing pacing;
    private final Admission admission;
    private final GatewayThreads threads;
    private final ScheduledExecutorService timers;
    private final SipProxy proxy;
    private final SipTransports transports;
    private final CallRegistry calls;
    private final CallRecordWriter records;
    private final OverloadController overload;
    private final AtomicBoolean closing = new AtomicBoolean();
    private final Drain drain;
    private final Reload reload;
    private final GatewayMetrics metrics;
    private final ConfigReloader reloader;
    private final FleetHealth health;
    private final SipTls tls;
    /** What has started, to stop in reverse. */
    private final StartedParts parts;
    private AdminServer admin;
    /** The calls in progress, to list and end through the admin API. */
    private final OperatorCalls operatorCalls;

    private Gateway(AtomicReference<ActiveConfig> active, RedisRuntime redis, RedisBreaker breaker, Pacing pacing,
                    Admission admission, GatewayThreads threads, SipProxy proxy, SipTransports transports,
                    CallRegistry calls,
                    DialogTable dialogs, CallRecordWriter records, OverloadController overload, GatewayMetrics metrics,
                    FleetHealth health, CarrierResolver resolver, SipTls tls, OperatorCalls operatorCalls,
                    StartedParts parts) {
        this.active = active;
        this.operatorCalls = operatorCalls;
        this.redis = redis;
        this.breaker = breaker;
        this.pacing = pacing;
        this.admission = admission;
        this.threads = threads;
        this.timers = threads.sipTimers();
        this.proxy = proxy;
        this.transports = transports;
        this.calls = calls;
        this.records = records;
        this.overload = overload;
        this.metrics = metrics;
        this.health = health;
        this.tls = tls;
        this.parts = parts;
        this.drain = new Drain(overload, calls, dialogs, timers, () -> activeConfig().config().sip().drainTimeout());
        this.reload = new Reload(active, admission, pacing.pacer(), health, resolver, tls, metrics);
        this.reloader = parts.add("live reload", new ConfigReloader(active.get().config().source(), reload,
                () -> activeConfig().generation(), metrics::reloadRefused, RELOAD_POLL, threads.configReload()));
    }

    public static Gateway start(GatewayConfig config) throws Exception {
        return start(config, System::nanoTime);
    }

    /**
     * Starts a gateway whose SIP proxy and overload control refill their shedding budgets
     * (sip.max-new-calls-per-second, the stateless answers per source) and measure waits by {@code proxyClock}
     * instead of {@link System#nanoTime}: a test moves it to say when.
     */
    public static Gateway start(GatewayConfig config, LongSupplier proxyClock) throws Exception {
        return start(config, proxyClock, System::nanoTime, true);
    }

    /**
     * As {@link #start(GatewayConfig, LongSupplier)}, with the SIP transports reading {@code loopClock} instead of
     * {@link System#nanoTime} to tell how long a message waited for its call's loop (and when it was read): a test
     * decides whether a new INVITE waited past T1, whatever its machine's pace.
     */
    static Gateway start(GatewayConfig config, LongSupplier proxyClock, LongSupplier loopClock) throws Exception {
        return start(config, proxyClock, loopClock, true);
    }

    /**
     * Starts as {@link #start(GatewayConfig)} does up to the end of the warm-up, then stops: no call but the warm-up's
     * is let in, and the admin server never opens. bin/trunkgate records the JVM's start cache from this run
     * (docs/warm-up.md).
     */
    public static void warmUpAndStop(GatewayConfig config) throws Exception {
        if (warmUpPlan(config).isEmpty()) {
            log.warn("no warm-up to run (sip.warm-up.calls = 0, or no UDP listener on IPv4): not started");
            return;
        }
        start(config, System::nanoTime, System::nanoTime, false).close();
    }

    /** Starts the parts, and with {@code takeCalls} the proxy and the operations; stops what started if one fails. */
    private static Gateway start(GatewayConfig config, LongSupplier proxyClock, LongSupplier loopClock,
                                 boolean takeCalls) throws Exception {
        StartedParts parts = new StartedParts();
        try {
            Gateway gateway = start(config, proxyClock, loopClock, parts, takeCalls);
            if (takeCalls) {
                gateway.startOperations();
            }
            return gateway;
        } catch (Exception | Error e) {
            parts.close();
            throw e;
        }
    }

    /**
     * Builds and starts the parts in order, each recorded in {@code parts} as it starts, so they stop in reverse; with
     * {@code takeCalls}, the proxy takes calls once the warm-up is over.
     */
    private static Gateway start(GatewayConfig config, LongSupplier proxyClock, LongSupplier loopClock,
                                 StartedParts parts, boolean takeCalls) throws Exception {
        AtomicReference<ActiveConfig> active = new AtomicReference<>(new ActiveConfig(config, 1));
        GatewayThreads threads = parts.add("threads", new GatewayThreads());
        ScheduledExecutorService timers = threads.sipTimers();
        GatewayMetrics metrics = parts.add("metrics", new GatewayMetrics(config.instanceId()));
        // Nothing the start-up's own Redis scripts and warm-up calls do is counted: they are not traffic.
        metrics.warmingUp();
        RedisRuntime redis = parts.add("redis", RedisRuntime.open(config.redis().connection(), threads.redisIo()));
        String prefix = config.redis().keyPrefix();
        RedisBreaker breaker = RedisBreaker.withTimeout(config.redis().timeout(), threads.redisTimeouts(),
                threads.redisResults(), threads::afterPendingRedisReads);
        LongSupplier wallMicros = () -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        Pacing pacing = parts.add("pacing", Pacing.of(redis.client(), prefix, breaker, config.fleetSize(),
                () -> active.get().config().admission().redisDown(), wallMicros, metrics::timed,
                threads.pacerTimer()));
        RerouteHook hook = metrics.counting(rerouteHook(config, metrics, threads));
        CarrierResolver resolver = CarrierResolver.open(config.dns(), Clock.systemUTC());
        Reload.resolveAhead(resolver, config);
        SipTls tls = SipTls.load(config, () -> active.get().config(), resolver, Clock.systemUTC());
        String warmUpId = WarmUp.id(config);
        CallRecordWriter records = parts.add("call records",
                CallRecordWriter.open(config.records(), config.instanceId(), r -> !warmUpId.equals(r.peer()),
                        threads.callRecords()));
        // an answered call counts at its answer (InviteCall); its record, written when its dialog ends, not again
        records.listen(record -> {
            if (record.finalStatus() / 100 != 2) {
                metrics.callSetUp(record);
            }
        });
        CallRegistry calls = new CallRegistry(proxyClock);
        AtomicReference<DialogTable> dialogTable = new AtomicReference<>();
        Admission admission = Admission.of(redis.client(), prefix, breaker, config.fleetSize(), wallMicros,
                metrics::timed, new Admission.Leasing(config.instanceId(), config.admission().leaseTime(),
                        () -> liveCallKeys(calls, dialogTable.get())));
        // An answered call's leases go when its dialog ends (BYE, timeout, shutdown), as its record is written.
        SipLimits limits = config.sip().limits();
        DialogTable dialogs = new DialogTable(limits.dialogTimeout(), limits.maxCallLength(), limits.linger(),
                limits.maxDialogs(), System::nanoTime, Clock.systemUTC(),
                (callKey, record) -> {
                    admission.leases().release(callKey);
                    records.write(record);
                });
        dialogTable.set(dialogs);
        admission.leases().start(timers);
        parts.started("call leases", () -> admission.leases().close(CANCEL_GRACE));
        parts.started("dialogs", () -> dialogs.endAll("shutdown"));
        timers.scheduleWithFixedDelay(dialogs::sweep, DIALOG_SWEEP_SECONDS, DIALOG_SWEEP_SECONDS, TimeUnit.SECONDS);
        metrics.trackDialogs(dialogs::live);
        RedisWarmUp.run(config.instanceId(), admission.fleetWide(), pacing.fleetWide(), WARM_UP_BUDGET);
        DigestAuthentication authentication = parts.add("digest authentication",
                DigestAuthentication.open(redis.client(), prefix, breaker, Clock.systemUTC(), timers));
        shareNonceKey(authentication);
        OverloadController overload = new OverloadController(() -> overloadSettings(active.get().config().sip()),
                proxyClock);
        // started before the SIP transports, so it stops after them; it takes messages once the gateway takes calls
        Optional<HepCapture> capture = config.capture().map(settings -> parts.add("SIP capture",
                HepCapture.start(settings, threads.sipCapture())));
        capture.ifPresent(hep -> metrics.trackCapture(hep::sent, dropCounts(hep), hep::connected, hep::queued));
        // TLS engines for the listeners, and for carriers reached over TLS, also those a reload adds
        SipTransports transports = SipTransports.create(config.sip(), overload, Optional.of(tls),
                capture.<Capture>map(hep -> hep).orElse(Capture.NONE), loopClock);
        parts.started("SIP transports", transports::close);
        FleetHealth health = parts.add("carrier health", FleetHealth.open(redis.client(), prefix,
                config.instanceId(), Clock.systemUTC(), () -> active.get().config().carriers(), resolver,
                (carrierId, by) -> metrics.carrierDown(carrierId, by.label())));
        Function<CarrierConfig, Optional<SlotRequest>> firstSlots = config.redis().mode().oneNode()
                ? carrier -> Optional.of(pacing.slotRequest(carrier)) : carrier -> Optional.empty();
        ProxyServices services = new ProxyServices(active::get, admission, pacing.pacer(), firstSlots,
                () -> hook, timers, new SipMessages(), transports, calls, dialogs, records, metrics, health,
                resolver, authentication);
        SipProxy proxy = new SipProxy(services, overload, proxyClock,
                TransactionTimers.RFC.withLinger(limits.linger()), threads.sipResolve());
        timers.execute(() -> probeSocketsNow(overload, timers));
        Optional<WarmUp.Plan> warmUp = warmUpPlan(config);
        // In front of the proxy before it hears anything: from the first datagram, INVITEs and OPTIONS of others
        // must hear 503 until the warm-up is over.
        Optional<StartingGate> starting = warmUp.map(plan -> new StartingGate(proxy, services.messages(),
                plan::isWarmUpCall, active.get()));
        if (warmUp.isEmpty()) {
            metrics.ready();
            if (takeCalls) {
                capture.ifPresent(HepCapture::open);
            }
        }
        transports.newCalls().deliverTo(starting.<NewCallGate>map(gate -> gate).orElse(proxy));
        metrics.trackShedAcks(transports.newCalls()::acksAbsorbed);
        transports.listen(starting.<Inbound>map(gate -> gate).orElse(proxy));
        health.startChecks(new OptionsProber(proxy.listeners(), proxy.transactions(), services.messages(), timers),
                timers);
        config.sip().listeners().forEach(l -> log.info("listening on {}:{}/{}", l.host(), l.port(), l.transport()));
        if (warmUp.isPresent()) {
            warmUp(warmUp.get(), config, active, calls, dialogs, metrics);
            if (takeCalls) {
                capture.ifPresent(HepCapture::open);
                transports.newCalls().deliverTo(proxy);
                starting.get().open();
            }
        }
        return new Gateway(active, redis, breaker, pacing, admission, threads, proxy, transports, calls, dialogs,
                records,
                overload, metrics, health, resolver, tls, proxy.operatorCalls(), parts);
    }

    /**
     * Reads the fleet's key for digest nonces before the gateway takes calls, so its first challenges are good at
     * every gateway of the fleet; without Redis, its own key serves until Redis answers (read again every 30 s).
     */
    private static void shareNonceKey(DigestAuthentication authentication) {
        try {
            authentication.shareSecret().toCompletableFuture().get(WARM_UP_BUDGET.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.warn("the fleet's key for digest nonces not read ({}): until it is, this gateway's nonces are good"
                    + " at this gateway only", e.toString());
        }
    }

    private static Map<String, LongSupplier> dropCounts(HepCapture capture) {
        Map<String, LongSupplier> counts = new TreeMap<>();
        HepCapture.DROP_REASONS.forEach(reason -> counts.put(reason, () -> capture.dropped(reason)));
        return counts;
    }

    /** The caps and the target of overload control as configured, with its default constants. */
    private static OverloadSettings overloadSettings(SipSettings sip) {
        return OverloadSettings.of(sip.overloadDelay(), sip.maxCallsInProgress(), sip.maxNewCallsPerSecond());
    }

    /**
     * Probes the UDP listeners' sockets, and again when {@link OverloadController#probeSockets()} says, until
     * shutdown.
     */
    private static void probeSocketsNow(OverloadController overload, ScheduledExecutorService timers) {
        try {
            Duration next = overload.probeSockets();
            timers.schedule(() -> probeSocketsNow(overload, timers), next.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shutdown) {
            // the timers are stopped: the gateway is closing
        }
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
        if (hook == RerouteHook.CONFIGURED_CHAIN) {
            log.info("reroute hook: the configured chain");
            return hook;
        }
        log.info("reroute hook: {}", hook.getClass().getName());
        // A plugin's code never runs on a SIP loop, where it would hold up every call of that loop; the call goes
        // on where its answer completes, and hops back to its own loop.
        ExecutorService plugin = threads.rerouteHook();
        return new RerouteHook() {
            @Override
            public List<String> reroute(RerouteContext context) {
                return hook.reroute(context);
            }

            @Override
            public CompletionStage<List<String>> rerouteAsync(RerouteContext context) {
                return CompletableFuture.supplyAsync(() -> hook.rerouteAsync(context), plugin)
                        .thenCompose(answer -> answer);
            }
        };
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
            log.warn("warm-up skipped: it needs a UDP listener on IPv4 (sip.listeners); the first calls meet a cold"
                    + " call path (docs/warm-up.md)");
        }
        return plan;
    }

    private static void warmUp(WarmUp.Plan plan, GatewayConfig config, AtomicReference<ActiveConfig> active,
                               CallRegistry calls, DialogTable dialogs, GatewayMetrics metrics) throws Exception {
        try {
            WarmUp.run(plan, config, config.sip().warmUp(), warm -> active.set(ActiveConfig.unlogged(warm)));
        } finally {
            active.set(new ActiveConfig(config, 1));
            // Only warm-up calls are up now (others heard 503). What the warm-up left, calls its max-time cut or a
            // BYE lost, ends here: its caller and carrier are gone, and a drain would wait for those dialogs.
            calls.abortHeld();
            dialogs.endAll("warm_up_over");
            metrics.ready();
        }
    }

    /** Metrics, the admin server and live reload. */
    private void startOperations() throws Exception {
        metrics.trackInvitesInFlight(calls::size);
        metrics.trackLeases(admission.leases()::held, admission.leases()::pendingReleases);
        metrics.trackRedisAvailable(breaker::isAvailable);
        timers.scheduleWithFixedDelay(new ConcurrencySampler(this::activeConfig, admission.leases(), metrics),
                0, CONCURRENCY_SAMPLE_SECONDS, TimeUnit.SECONDS);
        metrics.trackQueueDelay(overload::standingWaitMs);
        metrics.trackNewCallLimit(overload::newCallsPerSecondLimit);
        metrics.trackLoopBusy(overload::busiestLoopShare);
        metrics.trackTransactions(proxy.transactions()::size);
        metrics.trackCertificateExpiry(tls.statuses());
        metrics.trackConfigGeneration(() -> (int) activeConfig().generation());
        reload.trackConfigured(activeConfig());
        timers.scheduleWithFixedDelay(this::sampleCarrierAddresses, 0, ADDRESS_SAMPLE_SECONDS, TimeUnit.SECONDS);
        GatewayConfig config = activeConfig().config();
        TrafficHistory history = new TrafficHistory(HISTORY_SECONDS);
        timers.scheduleAtFixedRate(new HistorySampler(history, () -> activeConfig().config(), metrics,
                pacer()::heldCount, pacing::nextSlotWait, System::currentTimeMillis), 1, 1, TimeUnit.SECONDS);
        AdminApi api = new AdminApi(this::activeConfig, calls::size, redis.client(), admission.blocks(),
                admission.usage(), admission.leases(), pacer(), pacing::nextSlotWait, metrics, reloader, history, health,
                drain, new LiveCalls() {
                    @Override
                    public List<LiveCall> list() {
                        return operatorCalls.list();
                    }

                    @Override
                    public boolean hangUp(String id) {
                        return operatorCalls.hangUp(id);
                    }
                }, tls::certificate);
        // without admin.token, a token made now stands in for it, written where the CLI finds it
        Optional<String> made = Optional.empty();
        if (config.admin().token().isEmpty() && config.admin().tokenFile().isPresent()) {
            Path file = config.admin().tokenFile().get();
            made = Optional.of(AdminTokenFile.create(file));
            log.info("admin token written to {} (no admin.token set): the CLI run in its directory reads it,"
                    + " e.g. trunkgate block PEER 15m", file);
        }
        Optional<String> madeToken = made;
        admin = parts.add("admin server", AdminServer.start(config.admin(), api,
                () -> activeConfig().config().admin().token().or(() -> madeToken), threads.adminHttp()));
        if (config.admin().token().isEmpty() && madeToken.isEmpty()) {
            log.warn("no admin.token (TRUNKGATE_ADMIN_TOKEN unset or empty) nor admin.token-file: the admin API's"
                    + " changes (blocks, carrier holds, reload, drain) are refused with 403; reads, /metrics and"
                    + " /health work");
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
    public RedisBreaker redisBreaker() {
        return breaker;
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

    /** The SIP loop every message of the call {@code callId} is handled on (a test holds it to see what waits). */
    Executor callLoop(String callId) {
        return transports.loopFor(callId);
    }

    /**
     * Starts the graceful drain (idempotent; SIGTERM and POST /api/drain), see {@link Drain}: completes when the
     * last call has ended or {@code shutdown.drain-timeout} passed.
     */
    public CompletableFuture<Void> drain() {
        return drain.begin();
    }

    /** Ends a drain started by {@link #drain()}: new calls are taken again; false once the gateway is stopping. */
    public boolean resume() {
        return drain.resume();
    }

    /** Ends the drain now (a second SIGTERM): close() goes on without waiting for calls. */
    public void endDrain() {
        drain.end();
    }

    /** Calls not yet ended: INVITEs still being admitted or held, and dialogs (ringing or established). */
    public int callsInProgress() {
        return drain.callsInProgress();
    }

    /**
     * Drains (see {@link #drain()}), then cancels what still rings, and stops the parts in the reverse of the order
     * they started: the admin server before SIP (so /health says "draining" to the end), the timers and Redis (and
     * the embedded redis-server) last.
     */
    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            drain.stop().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.warn("drain failed: {}", e.getCause().toString());
        }
        calls.abortAll();
        drain.awaitNoInvites(CANCEL_GRACE);
        parts.close();
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
}
