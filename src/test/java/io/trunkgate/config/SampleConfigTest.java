package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The conf/ directory shipped for a new user loads and means what its comments say. */
class SampleConfigTest {

    private static final Path SAMPLE = Path.of("conf", "gateway.conf");

    @Test
    void gatewaySettings() throws Exception {
        GatewayConfig config = ConfigLoader.load(SAMPLE);

        assertEquals(SAMPLE, config.source());
        assertFalse(config.instanceId().isBlank());
        assertEquals(1, config.fleetSize());
        assertEquals(List.of(new SipListener(Transport.UDP, "127.0.0.1", 5060),
                new SipListener(Transport.TCP, "127.0.0.1", 5060)), config.sip().listeners());
        assertEquals(TcpLimits.DEFAULTS, config.sip().tcp());
        assertEquals(RedisMode.EMBEDDED, config.redis().mode());
        assertEquals(List.of(), config.redis().addresses());
        assertEquals(Duration.ofMillis(50), config.redis().timeout());
        assertEquals("tg", config.redis().keyPrefix());
        assertEquals(0, config.redis().embeddedPort());
        assertEquals(new AdmissionSettings(503, 403, 403, RedisDownPolicy.REJECT), config.admission());
        assertEquals("127.0.0.1", config.admin().host());
        assertEquals(8080, config.admin().port());
        assertEquals(Duration.ofSeconds(10), config.admin().requestTimeout());
        assertEquals(256, config.admin().maxConnections());
        assertEquals(32, config.admin().maxConnectionsPerAddress());
    }

    @Test
    void theQuickStartsPeerCarriersAndRoute() throws Exception {
        GatewayConfig config = ConfigLoader.load(SAMPLE);

        assertEquals(Set.of("local"), config.peers().keySet());
        PeerConfig local = config.peers().get("local");
        assertEquals(List.of(Cidr.parse("127.0.0.1"), Cidr.parse("::1")), local.sources());
        assertEquals(List.of(Limit.exact(Duration.ofSeconds(1), 15), Limit.exact(Duration.ofMinutes(1), 300)),
                local.limits());
        assertEquals(OptionalInt.of(50), local.maxConcurrent());
        assertEquals(Set.of(), config.groups().keySet());

        assertEquals(Set.of("local", "local-backup"), config.carriers().keySet());
        CarrierConfig carrier = config.carriers().get("local");
        assertEquals(new SipUri("sip:127.0.0.1:5080", "127.0.0.1", 5080, Transport.UDP, true, false), carrier.uri());
        assertEquals(List.of("local-backup"), carrier.alternates());
        assertEquals(Set.of(503, 408), carrier.failoverCodes());
        assertTrue(carrier.failoverOnTimeout());
        assertEquals(Duration.ofSeconds(2), carrier.answerTimeout());
        assertEquals(5081, config.carriers().get("local-backup").uri().port());
        assertEquals(List.of(new RouteConfig("", List.of("local"))), config.routes());
    }

    /** The *.conf.example files beside the sample are not read, and each loads once copied to its *.conf name. */
    @Test
    void theExamplesAreValidOnceCopied(@TempDir Path dir) throws Exception {
        Path conf = SAMPLE.getParent();
        Files.copy(SAMPLE, dir.resolve("gateway.conf"));
        for (String sub : List.of("peers", "groups", "carriers")) {
            Files.createDirectories(dir.resolve(sub));
            try (Stream<Path> examples = Files.list(conf.resolve(sub))) {
                for (Path example : examples.toList()) {
                    String name = example.getFileName().toString();
                    Files.copy(example, dir.resolve(sub).resolve(name.replaceFirst("\\.example$", "")));
                }
            }
        }
        Files.writeString(dir.resolve("routes.conf"), Files.readString(conf.resolve("routes.conf"))
                .replace("# { prefix = \"+44\"", "{ prefix = \"+44\""));

        GatewayConfig config = ConfigLoader.load(dir.resolve("gateway.conf"));

        assertEquals(Set.of("local", "acme", "globex", "initech", "vandelay"), config.peers().keySet());
        assertEquals(List.of(), config.peers().get("initech").sources());
        assertEquals("vandelay-pbx", config.peers().get("vandelay").credentials().orElseThrow().user());
        assertEquals(List.of(), config.peers().get("vandelay").sources());
        assertTrue(config.peers().get("initech").certificates().get(0) instanceof CertificateMatch.Sha256);
        PeerConfig acme = config.peers().get("acme");
        assertEquals(List.of(Cidr.parse("198.51.100.0/24"), Cidr.parse("203.0.113.7")), acme.sources());
        assertEquals(Optional.of("wholesale"), acme.group());
        assertEquals(List.of(Limit.exact(Duration.ofSeconds(1), 10), Limit.exact(Duration.ofMinutes(1), 300),
                Limit.bucketed(Duration.ofDays(1), 100_000, Duration.ofMinutes(1)),
                Limit.exact(Duration.ofSeconds(1), 8).in(LimitMode.SHADOW)), acme.limits());
        assertTrue(config.peers().get("globex").sources().get(1).contains(InetAddress.getByName("2001:db8:100::5")));
        assertEquals(OptionalInt.of(100), config.groups().get("wholesale").maxConcurrent());
        assertEquals(Set.of("local", "local-backup", "carrier-a", "carrier-b", "carrier-c"), config.carriers().keySet());
        assertEquals(List.of("carrier-b"), config.carriers().get("carrier-a").alternates());
        assertEquals(2.5, config.carriers().get("carrier-c").cps());
        assertEquals(List.of(new RouteConfig("", List.of("local")), new RouteConfig("+44", List.of("carrier-a", "carrier-b"))),
                config.routes());
    }
}
