package io.trunkgate.config;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * gateway.conf: the instance, its SIP listeners, admission answers and admin server. The redis block is
 * read by {@link RedisSettingsReader}, the file locations by {@link FileLayout}.
 */
final class GatewayFileReader {

    private static final int MAX_PORT = 65535;
    private static final List<SipListener> DEFAULT_LISTENERS = List.of(
            new SipListener(Transport.UDP, "127.0.0.1", 5060), new SipListener(Transport.TCP, "127.0.0.1", 5060));
    /** Long enough for most calls in a rolling restart to end; systemd's TimeoutStopSec must exceed it. */
    private static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DEFAULT_OVERLOAD_DELAY = Duration.ofMillis(50);
    private static final int DEFAULT_WARM_UP_CALLS = 3000;
    /** A DNS server: "[v6]:port", "v4[:port]" or a bare v6 address. */
    private static final Pattern DNS_SERVER = Pattern.compile("\\[(?<v6>[0-9A-Fa-f:.]+)](?::(?<v6port>\\d{1,5}))?"
            + "|(?<v4>\\d{1,3}(?:\\.\\d{1,3}){3})(?::(?<v4port>\\d{1,5}))?|(?<bare>[0-9A-Fa-f]*:[0-9A-Fa-f:.]*)");
    private static final String STATUS_RULE = "must be a SIP status code between 300 and 699";

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(GatewayFileReader.class);

    private GatewayFileReader() {
    }

    static GatewaySettings read(ConfigSection file, Path baseDir, TlsFileCheck tlsFiles) {
        String instanceId = file.optional("instance-id").id().orElseGet(GatewayFileReader::hostName);
        int fleetSize = file.optional("fleet-size").integer(1, Integer.MAX_VALUE).orElse(1);
        file.optional("sip.worker-threads").integer(1, 1024).ifPresent(n -> log.warn("sip.worker-threads is no longer"
                + " used and is ignored: each call runs on one of the SIP loops, two per core"));
        int maxCalls = file.optional("sip.max-calls-in-progress").integer(1, Integer.MAX_VALUE).orElse(10_000);
        double maxNewCalls = file.optional("sip.max-new-calls-per-second").number(n -> n >= 0 && Double.isFinite(n),
                "must be 0 (no cap) or more").orElse(0.0);
        Optional<String> rerouteHook = file.optional("routing.reroute-hook").nonEmptyString();
        file.optional("sip.queue-timeout").duration(Duration.ofMillis(1)).ifPresent(d -> log.warn("sip.queue-timeout is"
                + " no longer used and is ignored: no datagram waits for a worker; overload control sheds new calls"
                + " before they are read (docs/overload.md)"));
        Duration overloadDelay = file.optional("sip.overload-delay").duration(Duration.ZERO)
                .orElse(DEFAULT_OVERLOAD_DELAY);
        SipSettings sip = new SipSettings(listeners(file, baseDir, tlsFiles), maxCalls, maxNewCalls, overloadDelay,
                sipLimits(file), tcp(file),
                file.optional("shutdown.drain-timeout").duration(Duration.ZERO).orElse(DEFAULT_DRAIN_TIMEOUT),
                new WarmUpSettings(file.optional("sip.warm-up.calls").integer(0, 1_000_000).orElse(DEFAULT_WARM_UP_CALLS),
                        file.optional("sip.warm-up.max-time").duration(Duration.ofSeconds(1)), true),
                TlsListenerReader.settings(file));
        Path stateDir = stateDir(file);
        return new GatewaySettings(instanceId, fleetSize, sip, RedisSettingsReader.read(file),
                admission(file), admin(file, stateDir), rerouteHook, records(file, stateDir), reroute(file, baseDir),
                dns(file), CaptureReader.read(file));
    }

    /**
     * Where relative paths of files the gateway writes (records.file, admin.token-file) resolve: state-dir, itself relative to the
     * working directory, which it is by default (/var/lib/trunkgate under the systemd unit). Paths the gateway
     * only reads (peers-dir, plugins-dir, ...) resolve against gateway.conf's directory.
     */
    private static Path stateDir(ConfigSection file) {
        Field field = file.optional("state-dir");
        Optional<Path> given = field.nonEmptyString().map(Path::of).map(Path::toAbsolutePath);
        if (given.isPresent() && !Files.isDirectory(given.get())) {
            field.error("no such directory: " + given.get());
        }
        return given.orElse(Path.of("").toAbsolutePath());
    }

    private static DnsSettings dns(ConfigSection file) {
        DnsSettings defaults = DnsSettings.SYSTEM;
        return new DnsSettings(file.optional("dns.resolver").parsed(GatewayFileReader::dnsServer),
                file.optional("dns.timeout").duration(Duration.ofMillis(10)).orElse(defaults.timeout()),
                file.optional("dns.keep-stale").duration(Duration.ZERO).orElse(defaults.keepStale()));
    }

    /** "address[:port]" of a DNS server, port 53 by default; an IPv6 address with a port goes in brackets. */
    private static InetSocketAddress dnsServer(String text) {
        Matcher m = DNS_SERVER.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("must be an IP address with an optional port, e.g. \"127.0.0.1:5353\""
                    + " or \"[::1]:53\" (got \"" + text + "\")");
        }
        String host = m.group("v6") != null ? m.group("v6") : m.group("v4") != null ? m.group("v4") : m.group("bare");
        String portText = m.group("v6port") != null ? m.group("v6port") : m.group("v4port");
        int port = portText != null ? Integer.parseInt(portText) : 53;
        if (port < 1 || port > MAX_PORT) {
            throw new IllegalArgumentException("port out of range in \"" + text + "\"");
        }
        try {
            // an IP literal only (the pattern admits nothing else): no lookup happens here
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address: \"" + host + "\"");
        }
    }

    private static RerouteSettings reroute(ConfigSection file, Path baseDir) {
        RerouteSettings defaults = RerouteSettings.NONE;
        Field dirField = file.optional("plugins-dir");
        Optional<Path> pluginsDir = dirField.nonEmptyString().map(baseDir::resolve);
        if (pluginsDir.isPresent() && !Files.isDirectory(pluginsDir.get())) {
            dirField.error("no such directory: " + pluginsDir.get());
        }
        Optional<URI> url = file.optional("routing.reroute-url").parsed(GatewayFileReader::httpUrl);
        Duration timeout = file.optional("routing.reroute-timeout").duration(Duration.ofMillis(1))
                .orElse(defaults.timeout());
        int maxConcurrent = file.optional("routing.reroute-max-concurrent").integer(1, 10_000)
                .orElse(defaults.maxConcurrent());
        return new RerouteSettings(pluginsDir, url, timeout, maxConcurrent);
    }

    private static URI httpUrl(String text) {
        URI uri;
        try {
            uri = new URI(text.trim());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URL: \"" + text + "\"");
        }
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                || uri.getHost() == null) {
            throw new IllegalArgumentException("must be an http:// or https:// URL with a host (got \"" + text + "\")");
        }
        return uri;
    }

    private static CallRecordSettings records(ConfigSection file, Path stateDir) {
        CallRecordSettings defaults = CallRecordSettings.NONE;
        return new CallRecordSettings(file.optional("records.file").nonEmptyString().map(stateDir::resolve),
                file.optional("records.max-file-mb").integer(1, 100_000).orElse(defaults.maxFileMegabytes()),
                file.optional("records.max-files").integer(1, 1000).orElse(defaults.maxFiles()));
    }

    private static SipLimits sipLimits(ConfigSection file) {
        SipLimits defaults = SipLimits.DEFAULTS;
        return new SipLimits(
                file.optional("sip.max-message-size").integer(1024, 65535).orElse(defaults.maxMessageSize()),
                file.optional("sip.max-via-headers").integer(2, 256).orElse(defaults.maxViaHeaders()),
                file.optional("sip.dialog-timeout").duration(Duration.ofMinutes(1)).orElse(defaults.dialogTimeout()),
                file.optional("sip.max-call-length").duration(Duration.ofMinutes(1)).orElse(defaults.maxCallLength()),
                file.optional("sip.max-dialogs").integer(1, Integer.MAX_VALUE).orElse(defaults.maxDialogs()),
                file.optional("sip.transaction-linger").duration(Duration.ofSeconds(1), SipLimits.MAX_LINGER)
                        .orElse(defaults.linger()),
                file.optional("sip.path-mtu").integer(SipLimits.MIN_PATH_MTU, 65535).orElse(defaults.pathMtu()));
    }

    private static List<SipListener> listeners(ConfigSection file, Path baseDir, TlsFileCheck tlsFiles) {
        Field field = file.optional("sip.listeners");
        Optional<List<Field>> elements = field.elements();
        if (elements.isEmpty()) {
            return DEFAULT_LISTENERS;
        }
        if (elements.get().isEmpty()) {
            field.error("must list at least one listener");
        }
        List<SipListener> listeners = new ArrayList<>();
        Map<String, SipListener> sockets = new HashMap<>();
        for (Field element : elements.get()) {
            element.object().flatMap(item -> listener(item, baseDir, tlsFiles)).ifPresent(listener -> {
                // TCP and TLS listeners both take a TCP port: they cannot share one
                String socket = (listener.transport() == Transport.UDP ? "udp " : "tcp ") + listener.host() + ":"
                        + listener.port();
                SipListener first = sockets.putIfAbsent(socket, listener);
                if (first == null) {
                    listeners.add(listener);
                } else if (first.transport() == listener.transport()) {
                    element.error("the same listener is configured twice");
                } else {
                    element.error("port " + listener.port() + " of " + listener.host() + " is already taken by the "
                            + first.transport().sipName() + " listener");
                }
            });
        }
        return listeners;
    }

    private static Optional<SipListener> listener(ConfigSection item, Path baseDir, TlsFileCheck tlsFiles) {
        Optional<Transport> transport = item.required("transport").choice(Transport.class);
        Optional<String> host = item.required("host").nonEmptyString();
        Optional<Integer> port = item.optional("port").integer(1, MAX_PORT);
        Optional<TlsListenerSettings> tls = transport.flatMap(t -> TlsListenerReader.read(item, t, baseDir, tlsFiles));
        if (transport.isEmpty() || host.isEmpty() || (transport.get() == Transport.TLS && tls.isEmpty())) {
            return Optional.empty();
        }
        return Optional.of(new SipListener(transport.get(), host.get(), port.orElse(transport.get().defaultPort()),
                tls));
    }

    private static TcpLimits tcp(ConfigSection file) {
        TcpLimits defaults = TcpLimits.DEFAULTS;
        Duration idleTimeout = file.optional("sip.tcp.idle-timeout").duration(Duration.ofSeconds(1))
                .orElse(defaults.idleTimeout());
        Duration messageTimeout = file.optional("sip.tcp.message-timeout").duration(Duration.ofSeconds(1))
                .orElse(defaults.messageTimeout());
        int maxConnections = file.optional("sip.tcp.max-connections").integer(1, Integer.MAX_VALUE)
                .orElse(defaults.maxConnections());
        int maxPerSource = file.optional("sip.tcp.max-connections-per-source").integer(1, Integer.MAX_VALUE)
                .orElse(defaults.maxConnectionsPerSource());
        return new TcpLimits(idleTimeout, messageTimeout, maxConnections, maxPerSource);
    }

    private static AdmissionSettings admission(ConfigSection file) {
        int rejectCode = file.optional("admission.reject-code").integer(300, 699).orElse(503);
        int blockedCode = file.optional("admission.blocked-code").integer(300, 699).orElse(403);
        int unknownPeerCode = file.optional("admission.unknown-peer-code")
                .whole(code -> code == 0 || (code >= 300 && code <= 699), STATUS_RULE + ", or 0 to drop the INVITE")
                .map(Long::intValue).orElse(403);
        RedisDownPolicy redisDown = file.optional("admission.redis-down").choice(RedisDownPolicy.class)
                .orElse(RedisDownPolicy.REJECT);
        int concurrentCode = file.optional("admission.concurrent-code").integer(300, 699).orElse(503);
        Duration leaseTime = file.optional("admission.lease-time").duration(AdmissionSettings.MIN_LEASE_TIME)
                .orElse(AdmissionSettings.DEFAULT_LEASE_TIME);
        Duration nonceLifetime = file.optional("admission.nonce-lifetime")
                .duration(AdmissionSettings.MIN_NONCE_LIFETIME, AdmissionSettings.MAX_NONCE_LIFETIME)
                .orElse(AdmissionSettings.DEFAULT_NONCE_LIFETIME);
        return new AdmissionSettings(rejectCode, blockedCode, unknownPeerCode, redisDown, concurrentCode, leaseTime,
                nonceLifetime);
    }

    private static AdminSettings admin(ConfigSection file, Path stateDir) {
        String host = file.optional("admin.host").nonEmptyString().orElse("127.0.0.1");
        int port = file.optional("admin.port").integer(1, MAX_PORT).orElse(8080);
        // empty is none (TRUNKGATE_ADMIN_TOKEN= in /etc/default/trunkgate): the API's changes are refused, as without it
        Optional<String> token = file.optional("admin.token").string().filter(t -> !t.isBlank());
        Duration requestTimeout = file.optional("admin.request-timeout").duration(Duration.ofMillis(1))
                .orElse(AdminSettings.DEFAULT_REQUEST_TIMEOUT);
        int maxConnections = file.optional("admin.max-connections").integer(1, Integer.MAX_VALUE)
                .orElse(AdminSettings.DEFAULT_MAX_CONNECTIONS);
        int maxPerAddress = file.optional("admin.max-connections-per-address").integer(1, Integer.MAX_VALUE)
                .orElse(AdminSettings.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS);
        Optional<Path> tokenFile = file.optional("admin.token-file").nonEmptyString().map(stateDir::resolve);
        return new AdminSettings(host, port, token, requestTimeout, maxConnections, maxPerAddress, tokenFile);
    }

    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && Field.ID.matcher(fromEnvironment).matches()) {
            return fromEnvironment;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "trunkgate";
        }
    }
}
