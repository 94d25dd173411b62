package io.trunkgate.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static io.trunkgate.testing.LoopbackDns.host;
import static io.trunkgate.testing.LoopbackDns.naptr;
import static io.trunkgate.testing.LoopbackDns.srv;

import io.trunkgate.config.DnsSettings;
import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.internal.CachingResolver;
import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.ManualTime;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** Carrier URIs resolved per RFC 3263 against a real DNS server on loopback ({@link LoopbackDns}). */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarrierResolverTest {

    private static final String D = LoopbackDns.DOMAIN;
    private LoopbackDns dns;
    private CarrierResolver resolver;

    @BeforeAll
    void start() throws Exception {
        dns = LoopbackDns.start(60,
                // two targets of equal priority and weight
                srv("_sip._udp.even." + D, "a." + D, 5071, 10, 50),
                srv("_sip._udp.even." + D, "b." + D, 5072, 10, 50),
                host("a." + D, "127.0.0.71"), host("b." + D, "127.0.0.72"),
                host("even." + D, "127.0.0.70"),
                // a backup of lower priority (a higher number) and a weight that would win without priorities
                srv("_sip._udp.backed." + D, "b." + D, 5082, 20, 1000),
                srv("_sip._udp.backed." + D, "a." + D, 5081, 10, 1),
                // NAPTR: TCP preferred (lower order) over UDP
                naptr("naptr." + D, 20, 10, "s", "SIP+D2U", "", "_sip._udp.naptr." + D),
                naptr("naptr." + D, 10, 10, "s", "SIP+D2T", "", "_sip._tcp.naptr." + D),
                srv("_sip._udp.naptr." + D, "a." + D, 5091, 10, 10),
                srv("_sip._tcp.naptr." + D, "b." + D, 5092, 10, 10),
                // SRV over TCP only: found for a URI with no transport
                srv("_sip._tcp.tcponly." + D, "a." + D, 5093, 10, 10),
                // TLS: SRV _sips._tcp, beside a UDP one that a sips URI must not take
                srv("_sips._tcp.secure." + D, "b." + D, 5095, 10, 10),
                srv("_sip._udp.secure." + D, "a." + D, 5096, 10, 10),
                host("plain." + D, "127.0.0.73"));
        resolver = CarrierResolver.open(settings(dns), java.time.Clock.systemUTC());
    }

    @AfterAll
    void stop() {
        dns.close();
    }

    private static DnsSettings settings(LoopbackDns server) {
        return new DnsSettings(Optional.of(server.address()), Duration.ofMillis(500), Duration.ofHours(1));
    }

    private CarrierTargets resolve(String uri) throws Exception {
        return resolver.resolve(SipUri.parse(uri)).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void twoSrvTargetsOfWeight50EachSplitAThousandCallsBetween45And55Percent() throws Exception {
        CarrierTargets targets = resolve("sip:even." + D + ";transport=udp");
        CarrierAddress a = new CarrierAddress("127.0.0.71", 5071, Transport.UDP);
        CarrierAddress b = new CarrierAddress("127.0.0.72", 5072, Transport.UDP);
        assertEquals(List.of(a, b), targets.addresses().stream().sorted(
                java.util.Comparator.comparing(CarrierAddress::label)).toList());

        SplittableRandom random = new SplittableRandom(15);
        int firstToA = 0;
        for (int call = 0; call < 1000; call++) {
            List<CarrierAddress> order = targets.order(random);
            assertEquals(2, order.size(), "each call can fail over to the other target");
            firstToA += order.get(0).equals(a) ? 1 : 0;
        }
        assertTrue(firstToA >= 450 && firstToA <= 550, "calls sent first to a: " + firstToA + " of 1000");
    }

    @Test
    void lowerPriorityComesFirstWhateverTheWeights() throws Exception {
        CarrierTargets targets = resolve("sip:backed." + D + ";transport=udp");
        SplittableRandom random = new SplittableRandom(3);
        for (int call = 0; call < 200; call++) {
            assertEquals(List.of(new CarrierAddress("127.0.0.71", 5081, Transport.UDP),
                    new CarrierAddress("127.0.0.72", 5082, Transport.UDP)), targets.order(random));
        }
    }

    @Test
    void naptrPicksTheTransportAndItsSrvRecords() throws Exception {
        assertEquals(List.of(new CarrierAddress("127.0.0.72", 5092, Transport.TCP)),
                resolve("sip:naptr." + D).addresses(), "NAPTR order 10 (SIP+D2T) before order 20 (SIP+D2U)");
        assertEquals(List.of(new CarrierAddress("127.0.0.71", 5091, Transport.UDP)),
                resolve("sip:naptr." + D + ";transport=udp").addresses(), "a transport in the URI skips NAPTR");
        assertEquals(List.of(new CarrierAddress("127.0.0.71", 5093, Transport.TCP)),
                resolve("sip:tcponly." + D).addresses(), "without NAPTR: SRV for UDP, then for TCP");
    }

    @Test
    void aPortOrAnAddressInTheUriSkipsSrvAndAHostWithoutSrvIsReachedAt5060() throws Exception {
        assertEquals(List.of(new CarrierAddress("127.0.0.70", 5099, Transport.UDP)),
                resolve("sip:even." + D + ":5099;transport=udp").addresses());
        assertEquals(List.of(new CarrierAddress("127.0.0.73", 5060, Transport.UDP)),
                resolve("sip:plain." + D).addresses());
        assertEquals(List.of(new CarrierAddress("127.0.0.9", 5070, Transport.TCP)),
                resolve("sip:127.0.0.9:5070;transport=tcp").addresses());
        assertEquals(List.of(new CarrierAddress("0:0:0:0:0:0:0:1", 5060, Transport.UDP)),
                resolve("sip:[::1]").addresses());
    }

    @Test
    void aTlsUriTakesTheSipsSrvRecordsElseTheHostAt5061() throws Exception {
        CarrierAddress secure = new CarrierAddress("127.0.0.72", 5095, Transport.TLS);
        assertEquals(List.of(secure), resolve("sips:secure." + D).addresses());
        assertEquals(List.of(secure), resolve("sip:secure." + D + ";transport=tls").addresses());
        assertEquals(List.of(new CarrierAddress("127.0.0.73", 5061, Transport.TLS)),
                resolve("sips:plain." + D).addresses());
        assertEquals(List.of(new CarrierAddress("127.0.0.9", 5061, Transport.TLS)),
                resolve("sips:127.0.0.9").addresses());
    }

    @Test
    void aNameWithoutRecordsDoesNotResolve() {
        ExecutionException failed = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> resolve("sip:nobody." + D));
        assertTrue(failed.getCause() instanceof UnresolvedException, failed.toString());
    }

    @Test
    void answersAreLookedUpAgainWhenTheirTtlLapsesAndTheLastGoodOneOutlivesAFailedLookup() throws Exception {
        ManualTime time = new ManualTime();
        String host = "moving." + D;
        SipUri uri = SipUri.parse("sip:" + host + ":5060");
        LoopbackDns first = LoopbackDns.start(60, host(host, "127.0.0.81"));
        int port = first.port();
        CarrierResolver cached = CarrierResolver.open(settings(first), time.clock());
        try (LogCapture log = LogCapture.of(CachingResolver.class)) {
            assertEquals("127.0.0.81", only(cached, uri));

            first.close();
            try (LoopbackDns moved = LoopbackDns.startOn(port, 60, host(host, "127.0.0.82"))) {
                time.advance(Duration.ofSeconds(59));
                assertEquals("127.0.0.81", only(cached, uri), "within its TTL the answer is not looked up again");
                time.advance(Duration.ofSeconds(2));
                assertEquals("127.0.0.82", only(cached, uri), "past its TTL it is");
            }

            time.advance(Duration.ofSeconds(61));
            assertEquals("127.0.0.82", only(cached, uri), "the DNS server is gone: the last good answer stays");
            time.advance(Duration.ofSeconds(11));
            assertEquals("127.0.0.82", only(cached, uri), "and stays, looked up again after 10 s");
            long warnings = log.events().stream().filter(e -> e.getLevel() == ch.qos.logback.classic.Level.WARN).count();
            assertEquals(1, warnings, "one warning for the failure, not one per lookup: " + log.events());
            assertEquals(Optional.of(List.of(new CarrierAddress("127.0.0.82", 5060, Transport.UDP))),
                    cached.known(uri).map(CarrierTargets::addresses));
        }
    }

    private static String only(CarrierResolver resolver, SipUri uri) throws Exception {
        List<CarrierAddress> addresses = resolver.resolve(uri).toCompletableFuture().get(10, TimeUnit.SECONDS)
                .addresses();
        assertEquals(1, addresses.size(), addresses.toString());
        return addresses.get(0).ip();
    }
}
