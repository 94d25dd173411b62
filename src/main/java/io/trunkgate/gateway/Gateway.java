package io.trunkgate.gateway;

import io.trunkgate.admin.AdminApi;
import io.trunkgate.admin.AdminServer;
import io.trunkgate.admin.Draining;
import io.trunkgate.config.ConfigError;
import io.trunkgate.config.ConfigException;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.SipLimits;
import io.trunkgate.history.HistorySampler;
import io.trunkgate.history.TrafficHistory;
import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.internal.GuardedAdmissionLimiter;
import io.trunkgate.limit.internal.LocalAdmissionLimiter;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisBlockRegistry;
import io.trunkgate.limit.internal.WindowUsageReader;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.internal.GuardedSlotReserver;
import io.trunkgate.pace.internal.LocalSlotReserver;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.pace.internal.TimerCarrierPacer;
import io.trunkgate.records.CallRecordWriter;
import io.trunkgate.redis.RedisGuard;
import io.trunkgate.redis.RedisRuntime;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.route.RerouteHooks;
import io.trunkgate.sip.CallRegistry;
import io.trunkgate.sip.DialogTable;
import io.trunkgate.sip.ProxyServices;
import io.trunkgate.sip.SipMessages;
import io.trunkgate.sip.SipProxy;
import io.trunkgate.sip.SipStackFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.concurrent.Executors;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.sip.SipProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: Redis, admission, pacing, the SIP proxy, metrics, the admin server and live reload,
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

    private final AtomicReference<ActiveConfig> active;
    private final RedisRuntime redis;
    private final RedisGuard guard;
    private final CarrierPacer pacer;
    private final RedisAdmissionLimiter limiter;
    private final BlockRegistry blocks;
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
    private AdminServer admin;

    private Gateway(AtomicReference<ActiveConfig> active, RedisRuntime redis, RedisGuard guard, CarrierPacer pacer,
                    RedisAdmissionLimiter limiter, BlockRegistry blocks, ScheduledExecutorService timers,
                    SipStackFactory.Stack sip, CallRegistry calls, DialogTable dialogs, CallRecordWriter records,
                    SipProxy proxy, GatewayMetrics metrics) {
        this.active = active;
        this.redis = redis;
        this.guard = guard;
        this.pacer = pacer;
        this.limiter = limiter;
        this.blocks = blocks;
        this.timers = timers;
        this.sip = sip;
        this.calls = calls;
        this.dialogs = dialogs;
        this.records = records;
        this.proxy = proxy;
        this.metrics = metrics;
        this.reloader = new ConfigReloader(active.get().config().source(), this::apply,
                () -> activeConfig().generation(), metrics::reloadRefused, RELOAD_POLL);
    }

    public static Gateway start(GatewayConfig config) throws Exception {
        AtomicReference<ActiveConfig> active = new AtomicReference<>(new ActiveConfig(config, 1));
        RedisRuntime redis = RedisRuntime.open(config.redis());
        String prefix = config.redis().keyPrefix();
        GatewayMetrics metrics = new GatewayMetrics(config.instanceId());
        RedisGuard guard = RedisGuard.withTimeout(config.redis().timeout());
        LongSupplier wallMicros = () -> ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
        RedisSlotReserver slots = new RedisSlotReserver(redis.client(), prefix);
        CarrierPacer pacer = new TimerCarrierPacer(new FallbackSlotReserver(
                new GuardedSlotReserver(metrics.timed(slots), guard),
                new LocalSlotReserver(config.fleetSize(), wallMicros),
                () -> active.get().config().admission().redisDown()));
        ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "sip-timers");
            thread.setDaemon(true);
            return thread;
        });
        Gateway gateway;
        CallRecordWriter records = null;
        try {
            RerouteHook hook = metrics.counting(RerouteHooks.load(config.rerouteHook()));
            SipStackFactory.Stack sip = SipStackFactory.create("trunkgate-" + config.instanceId(), config.sip());
            CallRegistry calls = new CallRegistry();
            SipLimits limits = config.sip().limits();
            records = CallRecordWriter.open(config.records(), config.instanceId());
            DialogTable dialogs = new DialogTable(limits.dialogTimeout(), limits.maxDialogs(), System::nanoTime,
                    records::write);
            timers.scheduleWithFixedDelay(dialogs::sweep, DIALOG_SWEEP_SECONDS, DIALOG_SWEEP_SECONDS, TimeUnit.SECONDS);
            metrics.trackDialogs(dialogs::live);
            RedisAdmissionLimiter limiter = new RedisAdmissionLimiter(redis.client(), prefix);
            RedisWarmUp.run(config.instanceId(), limiter, slots, WARM_UP_BUDGET);
            ProxyServices services = new ProxyServices(active::get,
                    new CallAdmission(new GuardedAdmissionLimiter(metrics.timed(limiter), guard, limiter),
                            new LocalAdmissionLimiter(config.fleetSize(), wallMicros)), pacer,
                    () -> hook, timers, new SipMessages(), sip.providers(), calls, dialogs, records, metrics);
            SipProxy proxy = new SipProxy(services);
            for (SipProvider provider : sip.providers()) {
                provider.addSipListener(proxy);
            }
            sip.stack().start();
            config.sip().listeners().forEach(l -> log.info("listening on {}:{}/{}", l.host(), l.port(), l.transport()));
            gateway = new Gateway(active, redis, guard, pacer, limiter, new RedisBlockRegistry(redis.client(), prefix),
                    timers, sip, calls, dialogs, records, proxy, metrics);
        } catch (Exception e) {
            if (records != null) {
                records.close();
            }
            pacer.close();
            timers.shutdownNow();
            redis.close();
            throw e;
        }
        return gateway.startOperations(slots);
    }

    /** Metrics, the admin server and live reload; on failure the gateway is closed again. */
    private Gateway startOperations(RedisSlotReserver slots) throws Exception {
        try {
            metrics.trackInvitesInFlight(calls::size);
            metrics.trackConfigGeneration(() -> (int) activeConfig().generation());
            metrics.trackCarriers(activeConfig().config().carriers().keySet(), pacer::heldCount);
            GatewayConfig config = activeConfig().config();
            TrafficHistory history = new TrafficHistory(HISTORY_SECONDS);
            timers.scheduleAtFixedRate(new HistorySampler(history, () -> activeConfig().config(), metrics,
                    pacer::heldCount, slots::nextSlotWait, System::currentTimeMillis), 1, 1, TimeUnit.SECONDS);
            AdminApi api = new AdminApi(this::activeConfig, calls::size, redis.client(), blocks,
                    new WindowUsageReader(redis.client(), config.redis().keyPrefix()), pacer, slots, metrics, reloader,
                    history,
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
            admin = AdminServer.start(config.admin(), api, () -> activeConfig().config().admin().token());
            return this;
        } catch (Exception e) {
            close();
            throw e;
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
        metrics.trackCarriers(config.carriers().keySet(), pacer::heldCount);
        carryOverMovedPeers(previous.config(), config);
        if (!restartSettings(previous.config()).equals(restartSettings(config))) {
            log.warn("instance-id, sip, redis and admin server changes (all but the token) take effect at the"
                    + " next restart");
        }
        log.info("config generation {} active", next.generation());
    }

    /**
     * A peer's keys carry its group's hash tag: when a reload moves it into, out of or between groups, its
     * windows and block are carried over to the new tag, so the fleet neither forgets nor doubles its calls.
     */
    private void carryOverMovedPeers(GatewayConfig before, GatewayConfig after) {
        for (PeerConfig peer : after.peers().values()) {
            PeerConfig old = before.peers().get(peer.id());
            if (old != null && !old.group().equals(peer.group())) {
                limiter.movePeer(Scope.peer(old.id(), old.limits()), old.group(), peer.group())
                        .whenComplete((done, error) -> {
                            if (error != null) {
                                log.warn("peer {} moved from group {} to {}: its windows were not carried over: {}",
                                        peer.id(), old.group().orElse("-"), peer.group().orElse("-"), error.toString());
                            }
                        });
            }
        }
    }

    /** What only a restart changes: the listeners, Redis, the admin server's address and connection limits. */
    private static List<Object> restartSettings(GatewayConfig config) {
        return List.of(config.instanceId(), config.sip().listeners(), config.sip().workerThreads(),
                config.sip().queueTimeout(), config.sip().limits(), config.sip().tcp(), config.redis(),
                config.admin().host(), config.admin().port(), config.admin().requestTimeout(),
                config.admin().maxConnections(), config.admin().maxConnectionsPerAddress());
    }

    public GatewayMetrics metrics() {
        return metrics;
    }

    public ConfigReloader reloader() {
        return reloader;
    }

    /** Where the admin HTTP server listens (its port when admin.port picked a free one). */
    public InetSocketAddress adminAddress() {
        return admin.address();
    }

    public BlockRegistry blocks() {
        return blocks;
    }

    public RedisRuntime redis() {
        return redis;
    }

    /** Whether decisions currently come from Redis (circuit CLOSED) or from the Redis-down policy. */
    public RedisGuard redisGuard() {
        return guard;
    }

    public CarrierPacer pacer() {
        return pacer;
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
        sip.stack().stop();
        dialogs.endAll("shutdown");
        records.close();
        pacer.close();
        timers.shutdownNow();
        redis.close();
        log.info("gateway stopped");
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
