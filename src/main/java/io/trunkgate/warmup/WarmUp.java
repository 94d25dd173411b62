package io.trunkgate.warmup;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Cidr;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.RouteConfig;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.config.WarmUpSettings;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the gateway hot. A fresh JVM runs the call path interpreted for its first thousands of calls and
 * compiles it meanwhile, so a busy hour's rate offered at once is answered in seconds or not at all, and the
 * callers' retransmissions add to the load (docs/warm-up.md). So before the real configuration takes effect and
 * the admin server says ready, the gateway places calls to itself through its real UDP listener: a warm-up caller
 * and carrier on a loopback address of their own ({@link WarmUpAgent}), a configuration holding only them,
 * every step of a real call (admission and pacing scripts in Redis under ids of their own, the dialog, ACK, BYE).
 * Once the configured calls are done, it goes on two calls at a time while the JIT compiler is still busy
 * ({@link CompilerActivity}): at full tilt the calls leave the compiler too little of the cores, and what it had
 * not compiled yet it compiled under the first real traffic. Meanwhile any other INVITE is answered 503 with
 * Retry-After.
 */
public final class WarmUp {

    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    private static final int CONCURRENCY = 32;
    /** Calls at a time once the configured ones are done: few, so that the compiler gets the cores. */
    private static final int LIGHT_CONCURRENCY = 2;
    private static final String NUMBER = "99999";
    private static final InetAddress ADDRESS = WarmUpSettings.ADDRESS;
    private static final SecureRandom RANDOM = new SecureRandom();
    /**
     * The warm-up's length unless sip.warm-up.max-time sets it. From a start cache the compiler has the call path's
     * profiles from the first call, and compiles it in a few seconds; it stays busy longer with colder code, so the
     * compiler's activity cannot end that warm-up. Without one, on 2 cores, the compiler is still busy at 30 s.
     */
    private static final Duration MAX_TIME = Duration.ofSeconds(30);
    private static final Duration MAX_TIME_FROM_START_CACHE = Duration.ofSeconds(7);

    private WarmUp() {
    }

    /**
     * The id of the warm-up peer and carrier, in its Redis keys; never in call records, metrics or the call log.
     * No configured peer or carrier can have it (ids hold only letters, digits, '.', '_' and '-'), so the warm-up
     * never writes a key of theirs in a Redis the fleet shares.
     */
    public static String id(GatewayConfig real) {
        return "~warm-up-" + real.instanceId();
    }

    /**
     * Where the warm-up runs: the first IPv4 UDP listener, a loopback address, and the secret every warm-up Call-ID
     * starts with. A peer may claim the address (say 127.0.0.0/8): while the gateway starts, only a new call from
     * there with the secret is let in as a warm-up call, any other hears 503 "gateway starting".
     */
    public record Plan(InetSocketAddress listener, InetAddress address, String callIdPrefix) {

        /** Whether a new call from {@code source} with {@code callId} is one of the warm-up's own. */
        public boolean isWarmUpCall(InetAddress source, String callId) {
            return source.equals(address) && callId.startsWith(callIdPrefix);
        }
    }

    /** How long the warm-up may take: as configured, else by whether the JVM started from a start cache. */
    static Duration maxTime(WarmUpSettings settings, boolean startCache) {
        return settings.maxTime().orElse(startCache ? MAX_TIME_FROM_START_CACHE : MAX_TIME);
    }

    /** The compiler's share of the last second, for the log line: summed over its threads, so it may pass 100%. */
    private static String compilerShare(double share) {
        return Double.isNaN(share) ? "the warm-up ended before a full second of it was measured"
                : String.format(Locale.ROOT, "its threads compiled for %.0f%% of the last second", 100 * share);
    }

    /** The plan, unless the gateway has no IPv4 UDP listener to warm up through. */
    public static Optional<Plan> plan(GatewayConfig config) throws UnknownHostException {
        Optional<SipListener> udp = config.sip().listeners().stream()
                .filter(l -> l.transport() == Transport.UDP && l.host().indexOf(':') < 0)
                .findFirst();
        if (udp.isEmpty()) {
            return Optional.empty();
        }
        String host = udp.get().host();
        InetAddress listener = InetAddress.getByName(host.equals("0.0.0.0") ? "127.0.0.1" : host);
        byte[] secret = new byte[12];
        RANDOM.nextBytes(secret);
        return Optional.of(new Plan(new InetSocketAddress(listener, udp.get().port()), ADDRESS,
                "warm-up-" + HexFormat.of().formatHex(secret) + "-"));
    }

    /** A configuration with the warm-up caller as the only peer and the warm-up carrier as the only carrier. */
    static GatewayConfig config(GatewayConfig real, InetAddress caller, String carrierUri) {
        String peer = id(real);
        String carrier = id(real);
        Duration wait = Duration.ofSeconds(2);
        return new GatewayConfig(real.source(), real.instanceId(), real.fleetSize(), real.sip(), real.redis(),
                real.admission(), real.admin(),
                Map.of(peer, new PeerConfig(peer, List.of(Cidr.parse(caller.getHostAddress() + "/32")),
                        Optional.empty(), List.of(Limit.exact(Duration.ofSeconds(1), 1_000_000)))),
                Map.of(),
                Map.of(carrier, new CarrierConfig(carrier, SipUri.parse(carrierUri), 100_000, 1, wait, Set.of(),
                        false, List.of(), 100_000, wait, wait)),
                List.of(new RouteConfig("", List.of(carrier))), real.rerouteHook(), real.records(), real.reroute(),
                real.dns(), real.capture());
    }

    /**
     * Runs the warm-up calls with {@code activate} applied to the warm-up configuration first; returns how many
     * calls completed.
     */
    public static int run(Plan plan, GatewayConfig real, WarmUpSettings settings,
                   java.util.function.Consumer<GatewayConfig> activate) throws IOException, InterruptedException {
        long started = System.nanoTime();
        try (WarmUpAgent agent = new WarmUpAgent(plan.address(), plan.listener(), plan.callIdPrefix())) {
            activate.accept(config(real, plan.address(), agent.carrierUri()));
            boolean startCache = StartCache.inUse();
            long deadline = started + maxTime(settings, startCache).toNanos();
            agent.run(NUMBER, settings.calls(), () -> false, CONCURRENCY, deadline);
            CompilerActivity compiler = CompilerActivity.ofThisJvm();
            if (settings.untilCompiled()) {
                agent.run(NUMBER, 0, compiler::busy, LIGHT_CONCURRENCY, deadline);
            }
            int completed = agent.completed();
            log.info("warm-up: {} of {} calls completed ({} failed) through {} in {} ms{}; {} configured{}", completed,
                    agent.placed(), agent.failed(), plan.listener(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
                    startCache ? " from the JVM's start cache" : "", settings.calls(),
                    settings.untilCompiled() ? String.format(Locale.ROOT,
                            ", then more, %d at a time, while the JIT compiler was busy (%s)", LIGHT_CONCURRENCY,
                            compilerShare(compiler.lastShare())) : "");
            return completed;
        }
    }
}
