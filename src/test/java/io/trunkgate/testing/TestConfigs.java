package io.trunkgate.testing;

import io.trunkgate.config.TlsListenerSettings;
import io.trunkgate.config.CertificateMatch;
import io.trunkgate.config.AdminSettings;
import io.trunkgate.config.AdmissionSettings;
import io.trunkgate.config.CallRecordSettings;
import io.trunkgate.config.CaptureSettings;
import io.trunkgate.config.CallFailures;
import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.Cidr;
import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.GroupConfig;
import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.config.PeerCredentials;
import io.trunkgate.config.ProbeSettings;
import io.trunkgate.config.RedisDownPolicy;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.config.RerouteSettings;
import io.trunkgate.config.RouteConfig;
import io.trunkgate.config.SipLimits;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipSettings;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.WarmUpSettings;
import io.trunkgate.config.Transport;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** Builds gateway configurations for tests, listening on a free loopback port. */
public final class TestConfigs {

    private final Map<String, PeerConfig> peers = new HashMap<>();
    private final Map<String, GroupConfig> groups = new HashMap<>();
    private final Map<String, CarrierConfig> carriers = new HashMap<>();
    private final List<RouteConfig> routes = new ArrayList<>();
    private final RedisSettings redis;
    private final int sipPort;
    private RedisDownPolicy redisDown = RedisDownPolicy.REJECT;
    private int fleetSize = 1;
    private int maxCallsInProgress = 10_000;
    private double maxNewCallsPerSecond;
    private SipLimits sipLimits = SipLimits.DEFAULTS;
    private CallRecordSettings records = CallRecordSettings.NONE;
    /** Short: most tests end with calls still up, and closing a gateway waits for them up to this. */
    private Duration drainTimeout = Duration.ofMillis(500);
    private final List<SipListener> extraListeners = new ArrayList<>();
    private Optional<String> adminToken = Optional.empty();
    private Optional<Path> adminTokenFile = Optional.empty();
    private Duration adminRequestTimeout = AdminSettings.DEFAULT_REQUEST_TIMEOUT;
    private int adminMaxConnections = AdminSettings.DEFAULT_MAX_CONNECTIONS;
    private int adminMaxConnectionsPerAddress = AdminSettings.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
    private String instanceId = "test-gw";
    private TcpLimits tcpLimits = TcpLimits.DEFAULTS;
    private Optional<String> rerouteHook = Optional.empty();
    private RerouteSettings reroute = RerouteSettings.NONE;
    private Duration leaseTime = AdmissionSettings.DEFAULT_LEASE_TIME;
    private Duration nonceLifetime = AdmissionSettings.DEFAULT_NONCE_LIFETIME;
    private Duration overloadDelay = Duration.ZERO;
    private WarmUpSettings warmUp = WarmUpSettings.OFF;
    private DnsSettings dns = DnsSettings.SYSTEM;
    private Optional<CaptureSettings> capture = Optional.empty();

    /**
     * A gateway on the shared standalone redis-server of the test JVM, with keys of its own (prefix
     * {@code name} and a random part) so tests never see each other's counts.
     */
    public static TestConfigs onSharedRedis(String name, int sipPort) {
        return new TestConfigs(sharedRedis(name), sipPort);
    }

    /**
     * The shared standalone redis-server of the test JVM with keys of its own (prefix {@code name} and a random
     * part), for gateways of one test that share them (a fleet) or none.
     */
    public static RedisSettings sharedRedis(String name) {
        RedisSettings shared = StandaloneRedis.shared().settings();
        return new RedisSettings(shared.mode(), shared.addresses(), shared.sentinelMaster(), shared.password(),
                shared.timeout(), "tg-" + name + "-" + java.util.UUID.randomUUID(), 0);
    }

    public TestConfigs(RedisSettings redis, int sipPort) {
        this.redis = redis;
        this.sipPort = sipPort;
    }

    public int sipPort() {
        return sipPort;
    }

    public TestConfigs peer(String id, String source, Limit... limits) {
        peers.put(id, new PeerConfig(id, List.of(Cidr.parse(source)), Optional.empty(), List.of(limits)));
        return this;
    }

    /** Caps the calls in progress of the peer or carrier {@code id} (added before) at {@code max}. */
    public TestConfigs maxConcurrent(String id, int max) {
        PeerConfig peer = peers.get(id);
        if (peer != null) {
            peers.put(id, new PeerConfig(id, peer.sources(), peer.group(), peer.limits(), OptionalInt.of(max)));
            return this;
        }
        CarrierConfig c = carriers.get(id);
        if (c == null) {
            throw new IllegalArgumentException("no peer or carrier " + id);
        }
        carriers.put(id, new CarrierConfig(id, c.uri(), c.cps(), c.burst(), c.maxWait(), c.failoverCodes(),
                c.failoverOnTimeout(), c.alternates(), c.maxHeld(), c.answerTimeout(), c.ringTimeout(),
                OptionalInt.of(max)));
        return this;
    }

    public TestConfigs carrier(String id, SipAgent agent, double cps, Duration maxWait, Duration answerTimeout,
                               String... alternates) {
        return carrier(id, agent, cps, maxWait, answerTimeout, Duration.ofMinutes(2), alternates);
    }

    public TestConfigs carrier(String id, SipAgent agent, double cps, Duration maxWait, Duration answerTimeout,
                               Duration ringTimeout, String... alternates) {
        carriers.put(id, new CarrierConfig(id, SipUri.parse(agent.uri()), cps, 1, maxWait, Set.of(503, 408),
                true, List.of(alternates), 1000, answerTimeout, ringTimeout));
        return this;
    }

    /** The carrier already added, with its pacing and its max-concurrent in these modes. */
    public TestConfigs carrierModes(String carrierId, LimitMode pacing, LimitMode maxConcurrent) {
        CarrierConfig c = carriers.get(carrierId);
        carriers.put(carrierId, new CarrierConfig(c.id(), c.uri(), c.cps(), c.burst(), c.maxWait(), c.failoverCodes(),
                c.failoverOnTimeout(), c.alternates(), c.maxHeld(), c.answerTimeout(), c.ringTimeout(),
                c.maxConcurrent(), c.probe(), pacing, maxConcurrent));
        return this;
    }

    /** The carrier already added does not fail over on silence: past answer-timeout its call is answered 408. */
    public TestConfigs noFailoverOnTimeout(String carrierId) {
        CarrierConfig c = carriers.get(carrierId);
        carriers.put(carrierId, new CarrierConfig(c.id(), c.uri(), c.cps(), c.burst(), c.maxWait(), c.failoverCodes(),
                false, c.alternates(), c.maxHeld(), c.answerTimeout(), c.ringTimeout(), c.maxConcurrent(), c.probe()));
        return this;
    }

    /** Probes the carrier already added with {@code probe}. */
    public TestConfigs probe(String carrierId, ProbeSettings probe) {
        CarrierConfig c = carriers.get(carrierId);
        carriers.put(carrierId, new CarrierConfig(c.id(), c.uri(), c.cps(), c.burst(), c.maxWait(), c.failoverCodes(),
                c.failoverOnTimeout(), c.alternates(), c.maxHeld(), c.answerTimeout(), c.ringTimeout(),
                c.maxConcurrent(), Optional.of(probe)));
        return this;
    }

    /** The carrier already added (and probed, capped...: this comes last), set down by its failed calls so. */
    public TestConfigs callFailures(String carrierId, CallFailures failures) {
        carriers.put(carrierId, carriers.get(carrierId).withCallFailures(failures));
        return this;
    }

    public TestConfigs route(String prefix, String... carrierIds) {
        routes.add(new RouteConfig(prefix, List.of(carrierIds)));
        return this;
    }

    public TestConfigs redisDown(RedisDownPolicy policy) {
        this.redisDown = policy;
        return this;
    }

    public TestConfigs fleetSize(int instances) {
        this.fleetSize = instances;
        return this;
    }

    public TestConfigs maxCallsInProgress(int calls) {
        this.maxCallsInProgress = calls;
        return this;
    }

    public TestConfigs maxNewCallsPerSecond(double calls) {
        this.maxNewCallsPerSecond = calls;
        return this;
    }

    /** Listens on {@code listener} too, say a TLS one. */
    public TestConfigs listen(SipListener listener) {
        extraListeners.add(listener);
        return this;
    }

    /** Listens for TLS on 127.0.0.1:{@code port} with {@code certificate}, verifying clients against {@code clientCa}. */
    public TestConfigs listenTls(int port, TestCertificates.Issued certificate, Optional<Path> clientCa) {
        return listen(new SipListener(Transport.TLS, "127.0.0.1", port, Optional.of(new TlsListenerSettings(
                certificate.certificateFile(), certificate.keyFile(), Optional.empty(), List.of(), clientCa))));
    }

    /** A peer known by its client certificate only, from any source, at most 1,000 calls a second. */
    public TestConfigs peerByCertificate(String id, CertificateMatch match) {
        return peer(new PeerConfig(id, List.of(), Optional.empty(), List.of(Limit.exact(Duration.ofSeconds(1), 1000)),
                OptionalInt.empty(), List.of(match)));
    }

    /** Adds {@code peer} as it is. */
    public TestConfigs peer(PeerConfig peer) {
        peers.put(peer.id(), peer);
        return this;
    }

    /** Adds {@code carrier} as it is. */
    public TestConfigs carrier(CarrierConfig carrier) {
        carriers.put(carrier.id(), carrier);
        return this;
    }

    /** Listens on {@code host} too (UDP and TCP, on the same port), e.g. "::1" beside 127.0.0.1. */
    public TestConfigs alsoListenOn(String host) {
        extraListeners.add(new SipListener(Transport.UDP, host, sipPort));
        extraListeners.add(new SipListener(Transport.TCP, host, sipPort));
        return this;
    }

    public TestConfigs callRecords(Path file) {
        this.records = new CallRecordSettings(Optional.of(file), 100, 10);
        return this;
    }

    public TestConfigs drainTimeout(Duration timeout) {
        this.drainTimeout = timeout;
        return this;
    }

    public TestConfigs sipLimits(SipLimits limits) {
        this.sipLimits = limits;
        return this;
    }

    /** Without an admin token, the gateway makes one at start and writes it to {@code file}. */
    public TestConfigs adminTokenFile(Path file) {
        this.adminTokenFile = Optional.of(file);
        return this;
    }

    public TestConfigs adminToken(String token) {
        this.adminToken = Optional.of(token);
        return this;
    }

    public TestConfigs adminRequestTimeout(Duration timeout) {
        this.adminRequestTimeout = timeout;
        return this;
    }

    public TestConfigs adminMaxConnections(int total, int perAddress) {
        this.adminMaxConnections = total;
        this.adminMaxConnectionsPerAddress = perAddress;
        return this;
    }

    /** Warm-up calls before the gateway takes traffic; off by default, so tests start fast. */
    public TestConfigs warmUp(WarmUpSettings warmUp) {
        this.warmUp = warmUp;
        return this;
    }

    /** Sheds new INVITEs past this standing queue delay; off by default, as tests run on busy machines. */
    public TestConfigs overloadDelay(Duration delay) {
        this.overloadDelay = delay;
        return this;
    }

    public TestConfigs tcpLimits(TcpLimits limits) {
        this.tcpLimits = limits;
        return this;
    }

    /** routing.reroute-hook: the hook class to load. */
    public TestConfigs rerouteHook(String className) {
        this.rerouteHook = Optional.of(className);
        return this;
    }

    /** plugins-dir and the routing.reroute-url settings. */
    public TestConfigs reroute(RerouteSettings settings) {
        this.reroute = settings;
        return this;
    }

    public TestConfigs leaseTime(Duration time) {
        this.leaseTime = time;
        return this;
    }

    /** admission.nonce-lifetime: how long a digest challenge's nonce may be answered. */
    public TestConfigs nonceLifetime(Duration lifetime) {
        this.nonceLifetime = lifetime;
        return this;
    }

    /** A peer known by {@code credentials}, under {@code limit}, from {@code sources} if any, else from anywhere. */
    public TestConfigs peerByCredentials(String id, PeerCredentials credentials, Limit limit, String... sources) {
        return peer(new PeerConfig(id, java.util.Arrays.stream(sources).map(Cidr::parse).toList(), Optional.empty(),
                List.of(limit), OptionalInt.empty(), List.of(), LimitMode.ENFORCE, Optional.of(credentials)));
    }

    /** capture: the Homer collector the gateway copies its SIP messages to. */
    public TestConfigs capture(CaptureSettings settings) {
        this.capture = Optional.of(settings);
        return this;
    }

    /** dns.*: where carrier host names are looked up. */
    public TestConfigs dns(DnsSettings settings) {
        this.dns = settings;
        return this;
    }

    /** Adds a carrier reached at {@code uri} (a host name to look up, say). */
    public TestConfigs carrier(String id, String uri, double cps, Duration maxWait, Duration answerTimeout,
                               String... alternates) {
        carriers.put(id, new CarrierConfig(id, SipUri.parse(uri), cps, 1, maxWait, Set.of(503, 408), true,
                List.of(alternates), 1000, answerTimeout, Duration.ofMinutes(2)));
        return this;
    }

    public TestConfigs instance(String id) {
        this.instanceId = id;
        return this;
    }

    public GatewayConfig build() {
        List<SipListener> listeners = new ArrayList<>(List.of(new SipListener(Transport.UDP, "127.0.0.1", sipPort),
                new SipListener(Transport.TCP, "127.0.0.1", sipPort)));
        listeners.addAll(extraListeners);
        SipSettings sip = new SipSettings(listeners, maxCallsInProgress, maxNewCallsPerSecond, overloadDelay,
                sipLimits, tcpLimits, drainTimeout, warmUp);
        return new GatewayConfig(Path.of("test.conf"), instanceId, fleetSize, sip,
                redis, new AdmissionSettings(503, 403, 403, redisDown, 503, leaseTime, nonceLifetime),
                new AdminSettings("127.0.0.1", 0, adminToken, adminRequestTimeout, adminMaxConnections,
                        adminMaxConnectionsPerAddress, adminTokenFile), peers, groups, carriers, routes, rerouteHook, records, reroute, dns,
                capture);
    }
}
