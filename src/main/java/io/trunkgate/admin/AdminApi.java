package io.trunkgate.admin;

import io.trunkgate.tls.CertificateStatus;
import io.trunkgate.config.SipListener;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.trunkgate.config.AdminDurations;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.ConfigError;
import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.health.CarrierHealth;
import io.trunkgate.health.CarrierState;
import io.trunkgate.history.TrafficHistory;
import io.trunkgate.limit.BlockRegistry;
import io.trunkgate.limit.CallLeases;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WindowUsage.LimitUsage;
import io.trunkgate.limit.WindowUsage;
import io.trunkgate.limit.WouldRefuse;
import io.trunkgate.metrics.AnswerRatios;
import io.trunkgate.metrics.GatewayMetrics;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.records.LiveCall;
import io.trunkgate.runtime.ActiveConfig;
import io.trunkgate.runtime.ConfigReloader;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The admin endpoints: what each one reads or changes, and the JSON it answers with. */
public final class AdminApi {

    private static final Logger log = LoggerFactory.getLogger(AdminApi.class);
    /** Calls listed per exact window by GET /api/peers/{id}. */
    static final int LISTED_CALLS = 100;
    /** The longest block an operator may set: anything longer is taken for a typo. */
    static final Duration MAX_BLOCK = AdminDurations.MAX;
    private static final String STATUS_PAGE = resource("/admin/status.html");

    record RedisHealth(boolean reachable, double latencyMs, String error) {
    }

    /**
     * A configuration error: the file as the loader names it, the line (0 = unknown), the key, the problem. The
     * problem often quotes the value (a token put in the wrong key, a Redis URL with its password), so only answers
     * that need the admin token carry it ({@code message} null otherwise).
     */
    record ErrorView(String file, int line, String key, String message) {
        static List<ErrorView> of(List<ConfigError> errors, boolean withMessages) {
            return errors.isEmpty() ? null : errors.stream().map(e -> new ErrorView(e.file().toString(), e.line(),
                    e.key(), withMessages ? e.message() : null)).toList();
        }
    }

    /** {@code details}: where the errors' messages are when this report leaves them out. */
    record ReloadReport(String at, String trigger, boolean applied, long generation, List<ErrorView> errors,
                        String details) {
        static ReloadReport of(ConfigReloader.Attempt attempt, boolean withMessages) {
            return new ReloadReport(attempt.at().toString(), attempt.trigger(), attempt.applied(),
                    attempt.generation(), ErrorView.of(attempt.errors(), withMessages),
                    withMessages || attempt.errors().isEmpty() ? null : ERROR_DETAILS);
        }
    }

    static final String ERROR_DETAILS = "each error's message is in the gateway's log and in GET /api/reload"
            + " (with the admin token)";

    record ConfigHealth(long generation, String source, ReloadReport lastReload) {
    }

    record Health(String status, boolean live, boolean ready, String instance, RedisHealth redis,
                  ConfigHealth config, int invitesInFlight, int callsInProgress) {
    }

    record CallView(String member, String admittedAt, double ageMs) {
    }

    /**
     * {@code mode}: {@code enforce} or {@code shadow}; {@code wouldRefuse}: for a shadow limit, the calls it would
     * have refused at this gateway since it started (null for an enforced one).
     */
    record LimitView(String scope, long windowMs, long max, Long precisionMs, String mode, long used, long remaining,
                     double cps, Long wouldRefuse, List<CallView> calls) {
    }

    /**
     * Calls in progress fleet-wide against a max-concurrent cap; {@code mode} and {@code wouldRefuse} as a limit's
     * (a carrier's cap: null, its would-refuse counts are per peer in the metrics).
     */
    record ConcurrentView(String scope, long calls, int max, String mode, Long wouldRefuse) {
    }

    /** {@code anySource}: the peer is matched from any source address ({@code allow-any-source = true}). */
    record PeerView(String id, String group, boolean anySource, Long blockedForMs, List<LimitView> limits,
                    List<ConcurrentView> concurrent, AnswersView answers) {
    }

    /**
     * How a carrier answered this gateway's INVITEs (a peer: its admitted calls were answered) over the last
     * {@code minutes}: {@code asr} answered / attempts, {@code ner} reaching the callee / attempts (null without
     * attempts), mean post-dial delay and setup time, attempts by final response class ({@code none}: no final
     * response).
     */
    record AnswersView(int minutes, long attempts, long answered, Double asr, Double ner, Long pddMs, Long setupMs,
                       Map<String, Long> finals) {
        static AnswersView of(AnswerRatios.Ratios ratios) {
            return new AnswersView(AnswerRatios.WINDOW_MINUTES, ratios.attempts(), ratios.answered(), ratios.asr(),
                    ratios.ner(), ratios.pddMs(), ratios.setupMs(), ratios.finals());
        }
    }

    /**
     * {@code addresses}: each address of a carrier named by a host name, as last resolved (empty otherwise);
     * {@code pacingMode}: {@code enforce}, or {@code shadow} (calls sent at once, {@code waitMs} what the next
     * would have waited).
     */
    record CarrierView(String id, double cps, int burst, long maxWaitMs, String pacingMode, double waitMs, int held,
                       ConcurrentView concurrent, HealthView health, List<AddressView> addresses,
                       AnswersView answers) {
    }

    /** One address of a carrier, "ip:port/transport", and its health. */
    record AddressView(String address, boolean up, String reason, String since, String by) {
        static List<AddressView> of(Map<CarrierAddress, CarrierState> states) {
            return states.entrySet().stream().map(e -> new AddressView(e.getKey().label(), e.getValue().up(),
                    e.getValue().reason(), e.getValue().since().toString(), e.getValue().by())).toList();
        }
    }

    /**
     * A carrier's health: {@code until} for a hold (the carrier's Retry-After or an operator's) and for a down its
     * failed calls set (origin {@code checks}: calls try it again then).
     */
    record HealthView(boolean up, String origin, String reason, String since, String until, String by) {
        static HealthView of(CarrierState state) {
            return new HealthView(state.up(), state.origin().name().toLowerCase(Locale.ROOT), state.reason(),
                    state.since().toString(), state.until().map(Instant::toString).orElse(null), state.by());
        }
    }

    /** A call in progress ({@link LiveCall}), its times as ISO-8601 instants. */
    record LiveCallView(String id, String peer, String carrier, String caller, String callee, String phase,
                        String startedAt, String answeredAt) {
        static LiveCallView of(LiveCall call) {
            return new LiveCallView(call.id(), call.peer(), call.carrier(), call.caller(), call.callee(), call.phase(),
                    call.startedAt().toString(), call.answeredAt() == null ? null : call.answeredAt().toString());
        }
    }

    record BlockView(String peer, boolean blocked, Long remainingMs, Boolean lifted) {
    }

    /** A SIP listening point; {@code certificate} only for TLS. */
    record ListenerView(String transport, String host, int port, CertificateView certificate) {
    }

    /** The certificate a TLS listener presents now, and why its last renewal did not load, if it did not. */
    record CertificateView(String file, String subject, String notAfter, long expiresInSeconds,
                           String lastReloadError) {
        static CertificateView of(CertificateStatus status, Instant now) {
            return new CertificateView(status.certificate().toString(), status.subject(),
                    status.notAfter().toString(), Duration.between(now, status.notAfter()).toSeconds(),
                    status.lastReloadError().orElse(null));
        }
    }

    record ReloadResult(boolean applied, long generation, String error, List<ErrorView> errors) {
    }

    private final Supplier<ActiveConfig> config;
    private final Supplier<Integer> invitesInFlight;
    private final Draining draining;
    private final LiveCalls calls;
    private final RedissonClient redis;
    private final BlockRegistry blocks;
    private final WindowUsage usage;
    private final CarrierPacer pacer;
    /** How long a call arriving now would wait for a carrier's slot, fleet-wide. */
    private final Function<CarrierConfig, CompletionStage<Duration>> slots;
    private final GatewayMetrics metrics;
    private final ConfigReloader reloader;
    private final TrafficHistory history;
    private final CallLeases leases;
    private final CarrierHealth health;
    private final Function<SipListener, Optional<CertificateStatus>> certificates;
    /** The last Redis failure /health logged, so a poll every second logs a lasting outage once. */
    private volatile String lastRedisError;

    public AdminApi(Supplier<ActiveConfig> config, Supplier<Integer> invitesInFlight, RedissonClient redis,
                    BlockRegistry blocks, WindowUsage usage, CallLeases leases, CarrierPacer pacer,
                    Function<CarrierConfig, CompletionStage<Duration>> slots,
                    GatewayMetrics metrics, ConfigReloader reloader, TrafficHistory history, CarrierHealth health,
                    Draining draining, LiveCalls calls,
                    Function<SipListener, Optional<CertificateStatus>> certificates) {
        this.config = config;
        this.calls = calls;
        this.draining = draining;
        this.invitesInFlight = invitesInFlight;
        this.redis = redis;
        this.blocks = blocks;
        this.usage = usage;
        this.leases = leases;
        this.pacer = pacer;
        this.slots = slots;
        this.metrics = metrics;
        this.reloader = reloader;
        this.history = history;
        this.health = health;
        this.certificates = certificates;
    }

    /** The SIP listening points, each TLS one with its certificate's subject and expiry. */
    CompletionStage<Reply> listeners() {
        Instant now = Instant.now();
        List<ListenerView> views = config.get().config().sip().listeners().stream()
                .map(l -> new ListenerView(l.transport().sipName(), l.host(), l.port(),
                        certificates.apply(l).map(status -> CertificateView.of(status, now)).orElse(null)))
                .toList();
        return CompletableFuture.completedFuture(Reply.json(HttpResponseStatus.OK, Map.of("listeners", views)));
    }

    CompletionStage<Reply> statusPage() {
        return CompletableFuture.completedFuture(Reply.text("text/html; charset=utf-8", STATUS_PAGE));
    }

    CompletionStage<Reply> metrics() {
        return CompletableFuture.completedFuture(Reply.text(GatewayMetrics.contentType(), metrics.scrape()));
    }

    /** 200 when ready (Redis answers), else 503; "degraded" while the last reload was refused. */
    CompletionStage<Reply> health() {
        long start = System.nanoTime();
        return redis.getBucket(config.get().config().redis().keyPrefix() + ":health").isExistsAsync()
                .handle((exists, error) -> new RedisHealth(error == null, (System.nanoTime() - start) / 1e6,
                        error == null ? null : redisError(error)))
                .thenApply(redisHealth -> {
                    var snapshot = reloader.consistently(() -> Map.entry(config.get(), reloader.lastAttempt()));
                    ActiveConfig active = snapshot.getKey();
                    ReloadReport last = snapshot.getValue().map(attempt -> ReloadReport.of(attempt, false))
                            .orElse(null);
                    boolean reloadRefused = last != null && !last.applied();
                    // Draining first: a load balancer must move traffic away even while everything else is fine.
                    boolean drain = draining.draining();
                    String status = drain ? "draining" : !redisHealth.reachable() ? "unready"
                            : reloadRefused ? "degraded" : "ok";
                    boolean ready = redisHealth.reachable() && !drain;
                    Health health = new Health(status, true, ready, active.config().instanceId(),
                            redisHealth, new ConfigHealth(active.generation(), active.config().source().toString(), last),
                            invitesInFlight.get(), draining.callsInProgress());
                    return Reply.json(ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE, health);
                });
    }

    /** POST /api/drain: the gateway drains (as on SIGTERM) but keeps running; 202 with the calls still up. */
    CompletionStage<Reply> drain() {
        draining.start();
        return CompletableFuture.completedFuture(Reply.json(HttpResponseStatus.ACCEPTED,
                Map.of("status", "draining", "callsInProgress", draining.callsInProgress())));
    }

    /**
     * POST /api/resume: an operator's drain ends, new calls are taken again (200); 409 while the gateway is stopping
     * (SIGTERM or SIGINT), whose drain ends with the process.
     */
    CompletionStage<Reply> resume() {
        if (!draining.resume()) {
            throw new ApiException(HttpResponseStatus.CONFLICT,
                    "the gateway is stopping (SIGTERM or SIGINT): its drain ends with the process; start it again");
        }
        return CompletableFuture.completedFuture(Reply.ok(Map.of("status", "ready",
                "callsInProgress", draining.callsInProgress())));
    }

    /** GET /api/calls: the calls in progress here, oldest first; {@code ?peer=}, {@code ?carrier=}, {@code ?number=}. */
    CompletionStage<Reply> calls(AdminRouter.Request request) {
        String peer = request.queryValue("peer");
        String carrier = request.queryValue("carrier");
        String number = request.queryValue("number");
        List<LiveCallView> listed = calls.list().stream()
                .filter(call -> peer == null || peer.equals(call.peer()))
                .filter(call -> carrier == null || carrier.equals(call.carrier()))
                .filter(call -> number == null || number.equals(call.caller()) || number.equals(call.callee()))
                .map(LiveCallView::of).toList();
        return CompletableFuture.completedFuture(Reply.ok(Map.of("calls", listed)));
    }

    /** POST /api/calls/{id}/hangup: ends the call (see {@link LiveCalls#hangUp}); 404 when none has that id. */
    CompletionStage<Reply> hangUp(AdminRouter.Request request) {
        String id = request.pathParameter();
        if (!calls.hangUp(id)) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, "no call in progress with id " + id);
        }
        return CompletableFuture.completedFuture(Reply.ok(Map.of("id", id, "endedBy", "operator")));
    }

    CompletionStage<Reply> peers() {
        ActiveConfig active = config.get();
        List<CompletableFuture<PeerView>> views = active.config().peers().values().stream()
                .sorted(Comparator.comparing(PeerConfig::id))
                .map(peer -> peerView(active, peer, 0).toCompletableFuture()).toList();
        return CompletableFuture.allOf(views.toArray(CompletableFuture[]::new))
                .thenApply(done -> Reply.ok(Map.of("peers", views.stream().map(CompletableFuture::join).toList())));
    }

    CompletionStage<Reply> peer(AdminRouter.Request request) {
        ActiveConfig active = config.get();
        return peerView(active, knownPeer(active, request.pathParameter()), LISTED_CALLS).thenApply(Reply::ok);
    }

    CompletionStage<Reply> carriers() {
        ActiveConfig active = config.get();
        List<CompletableFuture<CarrierView>> views = active.config().carriers().values().stream()
                .sorted(Comparator.comparing(CarrierConfig::id))
                .map(carrier -> slots.apply(carrier).thenCombine(carrierConcurrent(carrier),
                        (wait, concurrent) -> new CarrierView(carrier.id(), carrier.cps(), carrier.burst(),
                                carrier.maxWait().toMillis(), mode(carrier.pacingMode()), wait.toNanos() / 1e6,
                                pacer.heldCount(carrier.id()),
                                concurrent, HealthView.of(health.state(carrier.id())),
                                AddressView.of(health.addresses(carrier)),
                                AnswersView.of(metrics.answers().carrier(carrier.id())))).toCompletableFuture())
                .toList();
        return CompletableFuture.allOf(views.toArray(CompletableFuture[]::new))
                .thenApply(done -> Reply.ok(Map.of("carriers", views.stream().map(CompletableFuture::join).toList())));
    }

    /**
     * POST /api/carriers/{id}/down or /up, {@code ?duration=} or a JSON body {@code {"duration": "10m"}}: held
     * so fleet-wide for that long (down needs a duration; up without one clears any down state).
     */
    CompletionStage<Reply> setHealth(AdminRouter.Request request, boolean up) {
        CarrierConfig carrier = config.get().config().carriers().get(request.pathParameter());
        if (carrier == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, "no such carrier: " + request.pathParameter());
        }
        String text = Optional.ofNullable(request.queryValue("duration"))
                .orElseGet(() -> bodyField(request.body(), "duration"));
        Optional<Duration> duration = up && text == null ? Optional.empty() : Optional.of(parseDuration(text));
        return health.set(carrier, up, duration).thenApply(state -> Reply.ok(Map.of("carrier", carrier.id(),
                "health", HealthView.of(state))));
    }

    /** Per second over the last minutes: each peer's admitted and refused calls, each carrier's pacing. */
    CompletionStage<Reply> history() {
        return CompletableFuture.completedFuture(Reply.ok(history.series()));
    }

    CompletionStage<Reply> block(AdminRouter.Request request) {
        PeerConfig peer = knownPeer(config.get(), request.pathParameter());
        return blocks.remaining(peer.id(), peer.group()).thenApply(left -> Reply.ok(new BlockView(peer.id(),
                left.isPresent(), left.map(Duration::toMillis).orElse(null), null)));
    }

    /** Blocks the peer fleet-wide for {@code ?duration=} or a JSON body {@code {"duration": "10m"}}. */
    CompletionStage<Reply> putBlock(AdminRouter.Request request) {
        PeerConfig peer = knownPeer(config.get(), request.pathParameter());
        Duration duration = parseDuration(Optional.ofNullable(request.queryValue("duration"))
                .orElseGet(() -> bodyField(request.body(), "duration")));
        return blocks.block(peer.id(), peer.group(), duration).thenCompose(done -> block(request));
    }

    CompletionStage<Reply> deleteBlock(AdminRouter.Request request) {
        PeerConfig peer = knownPeer(config.get(), request.pathParameter());
        return blocks.unblock(peer.id(), peer.group())
                .thenApply(lifted -> Reply.ok(new BlockView(peer.id(), false, null, lifted)));
    }

    /** GET /api/reload (with the token): the last reload with every error in full; 404 before the first one. */
    CompletionStage<Reply> lastReload() {
        ConfigReloader.Attempt attempt = reloader.lastAttempt().orElseThrow(() -> new ApiException(
                HttpResponseStatus.NOT_FOUND, "no reload since the gateway started"));
        return CompletableFuture.completedFuture(Reply.ok(ReloadReport.of(attempt, true)));
    }

    /** 200 when the configuration was applied; 422 with every error when it was refused (the old one runs on). */
    CompletionStage<Reply> reload() {
        return reloader.reload().thenApply(attempt -> attempt.applied()
                ? Reply.ok(new ReloadResult(true, attempt.generation(), null, null))
                : Reply.json(HttpResponseStatus.UNPROCESSABLE_ENTITY, new ReloadResult(false, attempt.generation(),
                        "configuration refused; generation " + attempt.generation() + " keeps running",
                        ErrorView.of(attempt.errors(), true))));
    }

    private CompletionStage<PeerView> peerView(ActiveConfig active, PeerConfig peer, int listCalls) {
        CompletionStage<List<LimitUsage>> read = usage.read(active.peerScope(peer), active.groupScope(peer), listCalls);
        CompletionStage<Optional<Duration>> blocked = blocks.remaining(peer.id(), peer.group());
        return read.thenCombine(blocked, (limits, block) -> new PeerView(peer.id(), peer.group().orElse(null),
                peer.anySource(), block.map(Duration::toMillis).orElse(null),
                limits.stream().map(l -> limitView(peer.id(), l, listCalls > 0)).toList(), null, null))
                .thenCombine(peerConcurrent(active, peer), (view, concurrent) -> new PeerView(view.id(), view.group(),
                        view.anySource(), view.blockedForMs(), view.limits(), concurrent,
                        AnswersView.of(metrics.answers().peer(peer.id()))));
    }

    /** The peer's and its group's calls in progress against their caps (null when neither has one). */
    private CompletionStage<List<ConcurrentView>> peerConcurrent(ActiveConfig active, PeerConfig peer) {
        List<CompletableFuture<ConcurrentView>> views = new ArrayList<>();
        Scope own = active.peerScope(peer);
        own.maxConcurrent().ifPresent(max -> views.add(leases.peerCalls(peer.id(), peer.group())
                .thenApply(calls -> concurrentView(peer.id(), own, calls, max)).toCompletableFuture()));
        active.groupScope(peer).ifPresent(group -> group.maxConcurrent().ifPresent(max -> views.add(
                leases.groupCalls(group.id()).thenApply(calls -> concurrentView(peer.id(), group, calls, max))
                        .toCompletableFuture())));
        return CompletableFuture.allOf(views.toArray(CompletableFuture[]::new))
                .thenApply(done -> views.isEmpty() ? null : views.stream().map(CompletableFuture::join).toList());
    }

    private ConcurrentView concurrentView(String peerId, Scope scope, long calls, int max) {
        return new ConcurrentView(scope.toString(), calls, max, mode(scope.capMode()), scope.shadowCap()
                ? metrics.wouldRefused(peerId, new WouldRefuse(scope, Optional.empty()).label()) : null);
    }

    private static String mode(LimitMode mode) {
        return mode.name().toLowerCase(Locale.ROOT);
    }

    private CompletionStage<ConcurrentView> carrierConcurrent(CarrierConfig carrier) {
        if (carrier.maxConcurrent().isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        int max = carrier.maxConcurrent().getAsInt();
        return leases.carrierCalls(carrier.id()).thenApply(calls -> new ConcurrentView("carrier:" + carrier.id(),
                calls, max, mode(carrier.maxConcurrentMode()), null));
    }

    private LimitView limitView(String peerId, LimitUsage usage, boolean withCalls) {
        Limit limit = usage.limit();
        List<CallView> calls = !withCalls || !limit.isExact() ? null : usage.calls().stream()
                .map(c -> new CallView(c.member(), Instant.EPOCH.plusNanos(c.admittedMicros() * 1000).toString(),
                        (usage.serverTimeMicros() - c.admittedMicros()) / 1000.0))
                .toList();
        double windowSeconds = limit.window().toNanos() / 1e9;
        return new LimitView(usage.scope().toString(), limit.window().toMillis(), limit.max(),
                limit.precision().map(Duration::toMillis).orElse(null), mode(limit.mode()), usage.used(),
                Math.max(0, limit.max() - usage.used()), usage.used() / windowSeconds,
                limit.shadow() ? metrics.wouldRefused(peerId, new WouldRefuse(usage.scope(), Optional.of(limit)).label())
                        : null, calls);
    }

    private static PeerConfig knownPeer(ActiveConfig active, String id) {
        PeerConfig peer = active.config().peers().get(id);
        if (peer == null) {
            throw new ApiException(HttpResponseStatus.NOT_FOUND, "no such peer: " + id);
        }
        return peer;
    }

    /** A duration by {@link AdminDurations}; 400 with the reason when it is missing or not one. */
    static Duration parseDuration(String text) {
        if (text == null || text.isBlank()) {
            throw new ApiException(HttpResponseStatus.BAD_REQUEST,
                    "a duration is required: ?duration=10m or a JSON body {\"duration\": \"10m\"}");
        }
        try {
            return AdminDurations.parse(text);
        } catch (IllegalArgumentException e) {
            throw new ApiException(HttpResponseStatus.BAD_REQUEST, e.getMessage());
        }
    }

    private static String bodyField(String body, String field) {
        if (body == null || body.isBlank()) {
            return null;
        }
        try {
            JsonNode value = JsonReplyEncoder.MAPPER.readTree(body).get(field);
            return value == null || !value.isTextual() ? null : value.asText();
        } catch (JsonProcessingException e) {
            throw new ApiException(HttpResponseStatus.BAD_REQUEST, "the body is not valid JSON: "
                    + e.getOriginalMessage());
        }
    }

    /**
     * Why Redis did not answer, for /health, which needs no token: the kind of failure only, since the client's
     * messages name the configured addresses; the message itself goes to the log, once per change.
     */
    private String redisError(Throwable error) {
        Throwable root = error;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        String message = root.toString();
        if (!message.equals(lastRedisError)) {
            lastRedisError = message;
            log.warn("health check: Redis did not answer: {}", message);
        }
        return root.getClass().getSimpleName() + " (the gateway's log has the details)";
    }

    private static String resource(String name) {
        try (InputStream in = AdminApi.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
