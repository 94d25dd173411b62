package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

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
    void peersAndGroups() throws Exception {
        GatewayConfig config = ConfigLoader.load(SAMPLE);

        assertEquals(Set.of("acme", "globex"), config.peers().keySet());
        PeerConfig acme = config.peers().get("acme");
        assertEquals(List.of(Cidr.parse("198.51.100.0/24"), Cidr.parse("203.0.113.7")), acme.sources());
        assertEquals(Optional.of("wholesale"), acme.group());
        assertEquals(OptionalInt.of(60), acme.maxConcurrent());
        assertEquals(OptionalInt.of(100), config.groups().get("wholesale").maxConcurrent());
        assertEquals(OptionalInt.empty(), config.peers().get("globex").maxConcurrent());
        assertEquals(List.of(Limit.exact(Duration.ofSeconds(1), 10), Limit.exact(Duration.ofMinutes(1), 300),
                Limit.bucketed(Duration.ofDays(1), 100_000, Duration.ofMinutes(1))), acme.limits());
        assertTrue(config.peers().get("globex").sources().get(1).contains(InetAddress.getByName("2001:db8:100::5")));
        assertEquals(Set.of("wholesale"), config.groups().keySet());
        assertEquals(Limit.exact(Duration.ofSeconds(1), 12), config.groups().get("wholesale").limits().get(0));
    }

    @Test
    void carriersAndRoutes() throws Exception {
        GatewayConfig config = ConfigLoader.load(SAMPLE);

        CarrierConfig a = config.carriers().get("carrier-a");
        assertEquals(new SipUri("sip:gw1.carrier-a.example:5060;transport=udp", "gw1.carrier-a.example", 5060,
                Transport.UDP, true, true), a.uri());
        assertEquals(30.0, a.cps());
        assertEquals(1, a.burst());
        assertEquals(Duration.ofSeconds(2), a.maxWait());
        assertEquals(Set.of(503, 408), a.failoverCodes());
        assertTrue(a.failoverOnTimeout());
        assertEquals(List.of("carrier-b"), a.alternates());
        assertEquals(OptionalInt.of(90), a.maxConcurrent());

        CarrierConfig b = config.carriers().get("carrier-b");
        assertEquals(Transport.TCP, b.uri().transport());
        assertEquals(Set.of(503, 408, 480), b.failoverCodes());
        assertEquals(500, b.maxHeld());
        assertEquals(Duration.ofSeconds(6), b.answerTimeout());

        CarrierConfig c = config.carriers().get("carrier-c");
        assertEquals(2.5, c.cps());
        assertEquals(1000, c.maxHeld());
        assertEquals(Duration.ofSeconds(8), c.answerTimeout());

        assertEquals(List.of(new RouteConfig("+44", List.of("carrier-a", "carrier-b")),
                new RouteConfig("", List.of("carrier-c"))), config.routes());
    }
}
