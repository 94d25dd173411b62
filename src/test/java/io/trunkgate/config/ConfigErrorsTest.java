package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each kind of mistake is reported with the file, line and key an operator needs to fix it. */
class ConfigErrorsTest {

    private static final String CARRIER_A = "id = carrier-a\nuri = \"sip:gw.a.example\"\ncps = 10\n";

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void syntaxErrorHasFileAndLine() {
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\nlimits = [ { window = 1s, max = 10 }\n");

        List<ConfigError> errors = files.errors();

        assertEquals(1, errors.size(), errors.toString());
        assertEquals(files.path("peers/acme.conf"), errors.get(0).file());
        assertEquals(4, errors.get(0).line());
        assertEquals("", errors.get(0).key());
        assertTrue(errors.get(0).toString().startsWith(files.path("peers/acme.conf") + ":4: "), errors.toString());
    }

    @Test
    void unknownKeysAreReportedWhereverTheyAre() {
        files.write("gateway.conf", "fleet-size = 2\nredis {\n  mode = embedded\n  tmeout = 50ms\n}\nadmn.port = 9000\n");
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\ngrup = wholesale\n"
                + "limits = [\n  { window = 1s, max = 10 }\n  { windw = 1m, max = 300 }\n]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 4, "redis.tmeout", "unknown key");
        assertError(errors, files.path("gateway.conf"), 6, "admn", "unknown key");
        assertError(errors, files.path("peers/acme.conf"), 3, "grup", "unknown key (expected here: id, match, group");
        assertError(errors, files.path("peers/acme.conf"), 6, "limits[1].windw", "unknown key");
        assertError(errors, files.path("peers/acme.conf"), 6, "limits[1].window", "required key missing");
        assertEquals(5, errors.size(), errors.toString());
    }

    @Test
    void dnsSettingsAreCheckedWithFileLineAndKey() {
        files.write("gateway.conf", "fleet-size = 1\ndns.resolver = \"ns1.example:53\"\ndns.timeout = 1ms\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 2, "dns.resolver", "must be an IP address with an optional port");
        assertError(errors, files.path("gateway.conf"), 3, "dns.timeout", "");
        assertEquals(2, errors.size(), errors.toString());
    }

    @Test
    void aDnsResolverIsAnAddressWithAnOptionalPort() throws Exception {
        files.write("gateway.conf", "dns.resolver = \"[::1]:5353\"\n");
        assertEquals(new java.net.InetSocketAddress("::1", 5353), files.load().dns().resolver().orElseThrow());
        files.write("gateway.conf", "dns.resolver = \"127.0.0.1\"\n");
        assertEquals(new java.net.InetSocketAddress("127.0.0.1", 53), files.load().dns().resolver().orElseThrow());
        files.write("gateway.conf", "dns { resolver = \"127.0.0.1:5353\", timeout = 500ms, keep-stale = 10m }\n");
        assertEquals(new DnsSettings(java.util.Optional.of(new java.net.InetSocketAddress("127.0.0.1", 5353)),
                Duration.ofMillis(500), Duration.ofMinutes(10)), files.load().dns());
    }

    @Test
    void missingRequiredKeys() {
        files.write("peers/acme.conf", "group = wholesale\n");
        files.write("carriers/a.conf", "id = carrier-a\n");
        files.write("routes.conf", "routes = [ { prefix = \"+44\" } ]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 0, "id", "required key missing");
        assertError(errors, files.path("peers/acme.conf"), 0, "match.sources", "required key missing");
        assertError(errors, files.path("carriers/a.conf"), 0, "uri", "required key missing");
        assertError(errors, files.path("carriers/a.conf"), 0, "cps", "required key missing");
        assertError(errors, files.path("routes.conf"), 1, "routes[0].carriers", "required key missing");
    }

    @Test
    void wrongTypes() {
        files.write("gateway.conf", "fleet-size = many\nadmin { port = 80.5 }\nsip.listeners = { transport = udp }\n");
        files.write("peers/acme.conf", "id = acme\nmatch.sources = \"192.0.2.1\"\nlimits = [ 10 ]\n");
        files.write("carriers/a.conf", "id = carrier-a\nuri = \"sip:gw.a.example\"\ncps = fast\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "fleet-size", "expected a whole number, got \"many\"");
        assertError(errors, files.path("gateway.conf"), 2, "admin.port", "expected a whole number, got 80.5");
        assertError(errors, files.path("gateway.conf"), 3, "sip.listeners", "expected a list, got an object");
        assertError(errors, files.path("peers/acme.conf"), 2, "match.sources", "expected a list, got \"192.0.2.1\"");
        assertError(errors, files.path("peers/acme.conf"), 3, "limits[0]", "expected an object, got 10");
        assertError(errors, files.path("carriers/a.conf"), 3, "cps", "expected a number, got \"fast\"");
    }

    @Test
    void badModes() {
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\nmode = dry-run\nlimits = [\n"
                + "  { window = 1s, max = 10, mode = shadow }\n  { window = 1m, max = 300, mode = log }\n]\n");
        files.write("groups/wholesale.conf", "id = wholesale\nmode = 1\n");
        files.write("carriers/a.conf", CARRIER_A + "pacing-mode = off\nmax-concurrent-mode = [shadow]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 3, "mode", "must be one of enforce, shadow (got \"dry-run\")");
        assertError(errors, files.path("peers/acme.conf"), 6, "limits[1].mode",
                "must be one of enforce, shadow (got \"log\")");
        assertError(errors, files.path("groups/wholesale.conf"), 2, "mode", "must be one of enforce, shadow");
        assertError(errors, files.path("carriers/a.conf"), 4, "pacing-mode", "must be one of enforce, shadow");
        assertError(errors, files.path("carriers/a.conf"), 5, "max-concurrent-mode", "expected a string");
        assertEquals(5, errors.size(), errors.toString());
    }

    @Test
    void badDurations() {
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\nlimits = [\n"
                + "  { window = 1s, max = 10 }\n  { window = 1x, max = 300 }\n  { window = 60, max = 300 }\n]\n");
        files.write("carriers/a.conf", CARRIER_A + "max-wait = -1s\nanswer-timeout = 0s\n");

        List<ConfigError> errors = files.errors();

        ConfigError bad = assertError(errors, files.path("peers/acme.conf"), 5, "limits[1].window", "bad duration");
        assertEquals(files.path("peers/acme.conf") + ":5: limits[1].window: bad duration \"1x\" "
                + "(use e.g. 500ms, 1s, 1m, 1d)", bad.toString());
        assertError(errors, files.path("peers/acme.conf"), 6, "limits[2].window", "duration 60 needs a unit");
        assertError(errors, files.path("carriers/a.conf"), 4, "max-wait", "must not be negative (got \"-1s\")");
        assertError(errors, files.path("carriers/a.conf"), 5, "answer-timeout", "must be at least 1ms");
    }

    @Test
    void limitsMustBePositiveAndPrecisionWithinTheWindow() {
        files.write("groups/wholesale.conf", "id = wholesale\nlimits = [\n  { window = 1s, max = 0 }\n"
                + "  { window = 0s, max = 5 }\n  { window = 1m, max = -3 }\n  { window = 1m, max = 10, precision = 2m }\n]\n");

        List<ConfigError> errors = files.errors();

        Path file = files.path("groups/wholesale.conf");
        assertError(errors, file, 3, "limits[0].max", "must be at least 1 (got 0)");
        assertError(errors, file, 4, "limits[1].window", "must be at least 1ms (got \"0s\")");
        assertError(errors, file, 5, "limits[2].max", "must be at least 1 (got -3)");
        assertError(errors, file, 6, "limits[3].precision", "precision \"2m\" is longer than the window \"1m\"");
        assertEquals(4, errors.size(), errors.toString());
    }

    @Test
    void aPrecisionWithMoreBucketsThanTheScriptsKeepBoundedOrASubMillisecondWindowIsRefused() {
        files.write("groups/wholesale.conf", "id = wholesale\nlimits = [\n  { window = 1d, max = 10, precision = 1s }\n"
                + "  { window = 1500us, max = 5 }\n  { window = 1h, max = 10, precision = 1500us }\n"
                + "  { window = 1d, max = 10, precision = 1m }\n  { window = 1h, max = 10, precision = 1758ms }\n]\n");

        List<ConfigError> errors = files.errors();

        Path file = files.path("groups/wholesale.conf");
        assertError(errors, file, 3, "limits[0].precision", "precision \"1s\" gives 86400 buckets per window of \"1d\","
                + " more than 2048 (every admission must do a bounded amount of Redis work): the smallest precision"
                + " allowed for this window is 42188ms");
        assertError(errors, file, 4, "limits[1].window", "window \"1500us\" is not a whole number of milliseconds");
        assertError(errors, file, 5, "limits[2].precision", "precision \"1500us\" is not a whole number of milliseconds");
        assertEquals(3, errors.size(), "1d at 1m (1,440 buckets) and 1h at 1758ms (2,048) are allowed: " + errors);
    }

    @Test
    void concurrentCapsMustBeWholeAndPositive() {
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\nmax-concurrent = 0\n");
        files.write("groups/wholesale.conf", "id = wholesale\nmax-concurrent = 2.5\n");
        files.write("carriers/a.conf", CARRIER_A + "max-concurrent = many\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 3, "max-concurrent", "must be at least 1 (got 0)");
        assertError(errors, files.path("groups/wholesale.conf"), 2, "max-concurrent", "expected a whole number");
        assertError(errors, files.path("carriers/a.conf"), 4, "max-concurrent", "expected a whole number");
        assertEquals(3, errors.size(), errors.toString());
    }

    @Test
    void leaseTimeAndConcurrentCodeMustBeUsable() {
        files.write("gateway.conf", "admission.lease-time = 500ms\nadmission.concurrent-code = 200\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "admission.lease-time", "must be at least 1000ms");
        assertError(errors, files.path("gateway.conf"), 2, "admission.concurrent-code", "must be");
        assertEquals(2, errors.size(), errors.toString());
    }

    @Test
    void overloadSettingsMustBeUsable() {
        files.write("gateway.conf", "sip.max-calls-in-progress = 0\nsip.max-new-calls-per-second = -5\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "sip.max-calls-in-progress", "must be at least 1 (got 0)");
        assertError(errors, files.path("gateway.conf"), 2, "sip.max-new-calls-per-second",
                "must be 0 (no cap) or more (got -5)");
        assertEquals(2, errors.size(), errors.toString());
    }

    @Test
    void adminConnectionLimitsMustBeUsable() throws Exception {
        files.write("gateway.conf", "admin {\n  request-timeout = 10\n  max-connections = 0\n"
                + "  max-connections-per-address = -1\n}\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 2, "admin.request-timeout", "duration 10 needs a unit");
        assertError(errors, files.path("gateway.conf"), 3, "admin.max-connections", "must be at least 1 (got 0)");
        assertError(errors, files.path("gateway.conf"), 4, "admin.max-connections-per-address",
                "must be at least 1 (got -1)");
        assertEquals(3, errors.size(), errors.toString());

        files.write("gateway.conf", "admin { request-timeout = 300ms, max-connections = 8, "
                + "max-connections-per-address = 2 }\n");
        AdminSettings admin = files.load().admin();
        assertEquals(Duration.ofMillis(300), admin.requestTimeout());
        assertEquals(8, admin.maxConnections());
        assertEquals(2, admin.maxConnectionsPerAddress());
    }

    @Test
    void duplicateAndMalformedIds() {
        files.write("peers/a.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\n");
        files.write("peers/b.conf", "\nid = acme\nmatch.sources = [\"192.0.2.2\"]\n");
        files.write("peers/c.conf", "id = \"ac me\"\nmatch.sources = [\"192.0.2.3\"]\n");
        files.write("carriers/a.conf", CARRIER_A);
        files.write("carriers/b.conf", CARRIER_A);

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/b.conf"), 2, "id",
                "duplicate peer id \"acme\" (already defined at " + files.path("peers/a.conf") + ":1)");
        assertError(errors, files.path("peers/c.conf"), 1, "id",
                "must contain only letters, digits, '.', '_' and '-' (got \"ac me\")");
        assertError(errors, files.path("carriers/b.conf"), 1, "id", "duplicate carrier id \"carrier-a\"");
        assertEquals(3, errors.size(), errors.toString());
    }

    @Test
    void referencesToUnknownIds() {
        files.write("groups/wholesale.conf", "id = wholesale\n");
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\ngroup = wholsale\n");
        files.write("carriers/a.conf", CARRIER_A + "alternates = [carrier-b, carrier-a]\n");
        files.write("routes.conf", "routes = [\n  { prefix = \"+44\", carriers = [carrier-a, carrier-z] }\n]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 3, "group",
                "unknown group \"wholsale\" (known: wholesale)");
        assertError(errors, files.path("carriers/a.conf"), 4, "alternates[0]", "unknown carrier \"carrier-b\"");
        assertError(errors, files.path("carriers/a.conf"), 4, "alternates[1]", "a carrier cannot be its own alternate");
        assertError(errors, files.path("routes.conf"), 2, "routes[0].carriers[1]", "unknown carrier \"carrier-z\"");
        assertEquals(4, errors.size(), errors.toString());
    }

    @Test
    void badRoutes() {
        files.write("carriers/a.conf", CARRIER_A);
        files.write("routes.conf", "routes = [\n  { prefix = \"+44\", carriers = [carrier-a] }\n"
                + "  { prefix = \"+44\", carriers = [carrier-a] }\n  { prefix = \"44x\", carriers = [carrier-a] }\n"
                + "  { prefix = \"\", carriers = [] }\n]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("routes.conf"), 3, "routes[1].prefix", "duplicate prefix \"+44\" (also at line 2)");
        assertError(errors, files.path("routes.conf"), 4, "routes[2].prefix", "must be digits");
        assertError(errors, files.path("routes.conf"), 5, "routes[3].carriers", "must list at least one carrier");
        assertEquals(3, errors.size(), errors.toString());
    }

    @Test
    void sourcesMustParseAndBelongToOnePeer() {
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\n  \"198.51.100.0/24\"\n  \"198.51.100.0/33\"\n"
                + "  \"not-an-ip\"\n]\n");
        files.write("peers/globex.conf", "id = globex\nmatch.sources = [\"198.51.100.9/24\", \"198.51.100.9\"]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 4, "match.sources[1]", "prefix length must be 0..32");
        assertError(errors, files.path("peers/acme.conf"), 5, "match.sources[2]", "not an IP address or CIDR");
        // 198.51.100.9/24 is the network 198.51.100.0/24; the host 198.51.100.9 within it is allowed.
        assertError(errors, files.path("peers/globex.conf"), 2, "match.sources[0]",
                "198.51.100.9/24 is already claimed by the peer in " + files.path("peers/acme.conf") + ":3");
        assertEquals(3, errors.size(), errors.toString());
    }

    @Test
    void aConfigurationOverItsBoundsIsRefusedWithTheLimit() throws Exception {
        files.write("carriers/a.conf", CARRIER_A);
        files.write("routes.conf", "routes = [\n" + "  { prefix = \"1\", carriers = [carrier-a] }\n".repeat(200_001) + "]\n");
        files.write("groups/wholesale.conf", "id = wholesale\nlimits = [\n" + "  { window = 1s, max = 1 }\n".repeat(65)
                + "]\n");
        for (int i = 0; i <= 10_000; i++) {
            java.nio.file.Files.writeString(java.nio.file.Files.createDirectories(dir.resolve("peers"))
                    .resolve("p" + i + ".conf"), "id = p" + i + "\nmatch.sources = [\"10.0.0.1\"]\n");
        }

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("routes.conf"), 1, "routes", "200001 routes, over the limit of 200000");
        assertError(errors, files.path("groups/wholesale.conf"), 2, "limits", "65 limits, over the limit of 64");
        assertError(errors, files.path("peers"), 0, "", "more than 10000 .conf files, over the limit of 10000 per"
                + " directory");
        assertEquals(3, errors.size(), errors.toString());
    }

    @Test
    void carrierUriAndFailoverEntries() {
        files.write("carriers/a.conf", "id = carrier-a\nuri = \"http://gw.a.example\"\ncps = 0\n"
                + "failover-on = [503, 200, soon, timeout]\n");

        List<ConfigError> errors = files.errors();

        Path file = files.path("carriers/a.conf");
        assertError(errors, file, 2, "uri", "not a SIP URI");
        assertError(errors, file, 3, "cps", "must be greater than 0 (got 0)");
        assertError(errors, file, 4, "failover-on[1]", "must be a SIP status code 300..699 or \"timeout\" (got 200)");
        assertError(errors, file, 4, "failover-on[2]", "(got \"soon\")");
        assertEquals(4, errors.size(), errors.toString());
    }

    @Test
    void portsEnumsAndStatusCodes() {
        files.write("gateway.conf", String.join("\n",
                "sip.listeners = [",
                "  { transport = sctp, host = \"127.0.0.1\", port = 5060 }",
                "  { transport = udp, host = \"127.0.0.1\", port = 70000 }",
                "]",
                "redis { mode = clustered, embedded-port = -1 }",
                "admission { reject-code = 200, blocked-code = 700, unknown-peer-code = 100, redis-down = maybe }",
                "admin.port = 0",
                ""));

        List<ConfigError> errors = files.errors();

        Path file = files.path("gateway.conf");
        assertError(errors, file, 2, "sip.listeners[0].transport", "must be one of udp, tcp, tls (got \"sctp\")");
        assertError(errors, file, 3, "sip.listeners[1].port", "must be between 1 and 65535 (got 70000)");
        assertError(errors, file, 5, "redis.mode", "must be one of embedded, standalone, sentinel, cluster");
        assertError(errors, file, 5, "redis.embedded-port", "must be between 0 and 65535 (got -1)");
        assertError(errors, file, 6, "admission.reject-code", "must be between 300 and 699 (got 200)");
        assertError(errors, file, 6, "admission.blocked-code", "must be between 300 and 699 (got 700)");
        assertError(errors, file, 6, "admission.unknown-peer-code", "or 0 to drop the INVITE (got 100)");
        assertError(errors, file, 6, "admission.redis-down", "must be one of allow, reject, local (got \"maybe\")");
        assertError(errors, file, 7, "admin.port", "must be between 1 and 65535 (got 0)");
        assertEquals(9, errors.size(), errors.toString());
    }

    @Test
    void unknownPeerCodeZeroDropsTheInvite() throws Exception {
        files.write("gateway.conf", "admission.unknown-peer-code = 0\n");

        assertEquals(0, files.load().admission().unknownPeerCode());
    }

    @Test
    void redisModesNeedTheirAddresses() {
        files.write("gateway.conf", "redis {\n  mode = standalone\n  addresses = [\"redis://a:6379\", \"redis://b:6379\"]\n}\n");
        assertError(files.errors(), files.path("gateway.conf"), 3, "redis.addresses",
                "standalone mode needs exactly one address, got 2");

        files.write("gateway.conf", "redis {\n  mode = sentinel\n  addresses = [\"redis://a:26379\", \"tcp://b\"]\n}\n");
        List<ConfigError> errors = files.errors();
        assertError(errors, files.path("gateway.conf"), 3, "redis.addresses[1]", "must be \"redis://host:port\"");
        assertError(errors, files.path("gateway.conf"), 1, "redis.sentinel-master", "sentinel mode needs");
    }

    @Test
    void everyErrorOfEveryFileIsReportedAtOnce() {
        files.write("gateway.conf", "fleet-size = 0\n");
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\nlimits = [ { window = 1s, max = 0 } ]\n");
        files.write("carriers/a.conf", "id = carrier-a\nuri = \"sip:gw.a.example\"\ncps = 10\nburst = 0\n");
        files.write("routes.conf", "routes = [ { prefix = \"1\", carriers = [nobody] } ]\n");

        ConfigException e = assertThrows(ConfigException.class, files::load);

        assertEquals(4, e.errors().size(), e.getMessage());
        assertError(e.errors(), files.path("gateway.conf"), 1, "fleet-size", "must be at least 1");
        assertError(e.errors(), files.path("peers/acme.conf"), 3, "limits[0].max", "must be at least 1");
        assertError(e.errors(), files.path("carriers/a.conf"), 4, "burst", "must be at least 1");
        assertError(e.errors(), files.path("routes.conf"), 1, "routes[0].carriers[0]", "unknown carrier \"nobody\"");
        assertTrue(e.getMessage().startsWith("4 configuration errors:\n  "), e.getMessage());
        assertTrue(e.getMessage().contains("\n  " + files.path("carriers/a.conf") + ":4: burst: must be at least 1"),
                e.getMessage());
    }

    @Test
    void otherFilesAreStillCheckedWhenGatewayConfIsBroken() {
        files.write("gateway.conf", "redis {\n");
        files.write("peers/acme.conf", "id = acme\n");

        List<ConfigError> errors = files.errors();

        assertEquals(files.path("gateway.conf"), errors.get(0).file());
        assertError(errors, files.path("peers/acme.conf"), 0, "match.sources", "required key missing");
    }

    @Test
    void missingGatewayConf() {
        Path missing = dir.resolve("nope.conf");

        ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(missing));

        assertEquals(List.of(new ConfigError(missing, 0, "", "file not found")), e.errors());
    }

    @Test
    void explicitlyConfiguredLocationsMustExist() {
        files.write("gateway.conf", "peers-dir = peer\nroutes-file = route.conf\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "peers-dir", "no such directory: " + files.path("peer"));
        assertError(errors, files.path("gateway.conf"), 2, "routes-file", "no such file: " + files.path("route.conf"));
    }

    @Test
    void missingDefaultDirectoriesAndRoutesMeanNone() throws Exception {
        GatewayConfig config = files.load();

        assertTrue(config.peers().isEmpty());
        assertTrue(config.carriers().isEmpty());
        assertTrue(config.routes().isEmpty());
        assertEquals(RedisDownPolicy.REJECT, config.admission().redisDown());
    }

    @Test
    void locationsAreRelativeToGatewayConf() throws Exception {
        files.write("gateway.conf", "peers-dir = customers\n");
        files.write("customers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\n");

        assertEquals(List.of(Cidr.parse("192.0.2.1")), files.load().peers().get("acme").sources());
    }

    @Test
    void unquotedNumericPrefixKeepsItsLeadingZeros() throws Exception {
        files.write("carriers/a.conf", CARRIER_A);
        files.write("routes.conf", "routes = [ { prefix = 0044, carriers = [carrier-a] } ]\n");

        assertEquals(List.of(new RouteConfig("0044", List.of("carrier-a"))), files.load().routes());
    }

    @Test
    void anEmptyGatewayConfIsRefused() {
        files.write("gateway.conf", "");
        assertError(files.errors(), files.path("gateway.conf"), 0, "", "no settings at all");
    }

    @Test
    void aMissingIncludeIsAnError() {
        files.write("gateway.conf", "include \"tokens.conf\"\nfleet-size = 1\n");
        assertError(files.errors(), files.path("gateway.conf"), 0, "", "include \"tokens.conf\": no such file");
    }

    @Test
    void anIncludeThatExistsIsRead() throws Exception {
        files.write("gateway.conf", "include \"fleet.conf\"\n")
                .write("fleet.conf", "fleet-size = 3\n");
        assertEquals(3, files.load().fleetSize());
    }

    @Test
    void aDeeplyNestedFileIsAnErrorNotACrash() {
        files.write("peers/deep.conf", "a {".repeat(20_000) + "}".repeat(20_000));
        assertError(files.errors(), files.path("peers/deep.conf"), 0, "", "nested too deeply");
    }

    @Test
    void alternatesThatLoopAreRefused() {
        files.write("carriers/a.conf", "id = a\nuri = \"sip:127.0.0.1:5070\"\ncps = 10\nalternates = [b]\n")
                .write("carriers/b.conf", "id = b\nuri = \"sip:127.0.0.1:5071\"\ncps = 10\nalternates = [c]\n")
                .write("carriers/c.conf", "id = c\nuri = \"sip:127.0.0.1:5072\"\ncps = 10\nalternates = [a]\n");
        List<ConfigError> errors = files.errors();
        assertError(errors, files.path("carriers/a.conf"), 1, "alternates", "a -> b -> c -> a");
    }

    @Test
    void aCarrierWhoseTransportHasNoListenerIsRefused() {
        files.write("gateway.conf", "sip.listeners = [ { transport = udp, host = \"127.0.0.1\" } ]\n")
                .write("carriers/t.conf", "id = t\nuri = \"sip:127.0.0.1:5070;transport=tcp\"\ncps = 10\n");
        assertError(files.errors(), files.path("carriers/t.conf"), 1, "uri", "transport tcp has no listener");
    }
    @Test
    void aPeerWhoseLimitsWithItsGroupsCostOneDecisionTooMuchIsRefusedAtItsLimits() {
        files.write("groups/wholesale.conf", "id = wholesale\nlimits = [\n"
                + "  { window = 1h, max = 10000, precision = 10s }\n  { window = 1d, max = 100000, precision = 1m }\n]\n");
        files.write("peers/acme.conf", "id = acme\nmatch.sources = [\"192.0.2.1\"]\ngroup = wholesale\nlimits = [\n"
                + "  { window = 1s, max = 10 }\n  { window = 1h, max = 1000, precision = 10s }\n"
                + "  { window = 1d, max = 10000, precision = 1m }\n  { window = 1d, max = 8000, precision = 1m, mode = shadow }\n]\n");
        files.write("peers/beta.conf", "id = beta\nmatch.sources = [\"192.0.2.2\"]\ngroup = wholesale\nlimits = [\n"
                + "  { window = 1h, max = 1000, precision = 10s }\n  { window = 1d, max = 10000, precision = 1m }\n]\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("peers/acme.conf"), 4, "limits", "with the 2 limits of group wholesale: 5 precision"
                + " windows weighed in one decision, more than 4");
        assertEquals(1, errors.size(), "beta's four precision windows with its group's are within the bound: " + errors);
    }
}
