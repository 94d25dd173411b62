package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.LoopbackDns;
import io.trunkgate.testing.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckConfigCommandTest {

    @Test
    void theSampleConfigPasses() {
        CommandRun result = CommandRun.of("check-config", "--config", "conf/gateway.conf");
        assertEquals(0, result.exit(), result.err());
        assertTrue(result.out().contains("OK"), result.out());
    }

    @Test
    void everyErrorIsPrintedWithFileLineAndKeyAndTheExitCodeIsOne(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\nadmission.reject-code = 200\n");
        Files.createDirectories(dir.resolve("peers"));
        Files.writeString(dir.resolve("peers/acme.conf"),
                "id = acme\nmatch.sources = [\"10.0.0.0/33\"]\nlimits = [ { window = 1x, max = 10 } ]\n");
        CommandRun result = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());
        assertEquals(1, result.exit());
        assertTrue(result.err().contains("gateway.conf:2: admission.reject-code"), result.err());
        assertTrue(result.err().contains("acme.conf:2: match.sources[0]"), result.err());
        assertTrue(result.err().contains("acme.conf:3: limits[0].window"), result.err());
        assertTrue(result.err().contains("3 error(s)"), result.err());
    }

    @Test
    void aPeerMatchingEverySourceNeedsAllowAnySource(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\n");
        Files.createDirectories(dir.resolve("peers"));
        Files.writeString(dir.resolve("peers/open.conf"), "id = open\nmatch.sources = [\"0.0.0.0/0\"]\n");
        Files.writeString(dir.resolve("peers/open6.conf"), "id = open6\nmatch.sources = [\"8000::/1\", \"::/1\"]\n");
        CommandRun refused = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());
        assertEquals(1, refused.exit(), refused.err());
        assertTrue(refused.err().contains("open.conf:2: match.sources: covers every IPv4 address, so this peer would"
                + " take in calls from anyone"), refused.err());
        assertTrue(refused.err().contains("set allow-any-source = true if that is meant"), refused.err());
        assertTrue(refused.err().contains("open6.conf:2: match.sources: covers every IPv6 address"), refused.err());

        Files.writeString(dir.resolve("peers/open.conf"), "id = open\nmatch.sources = [\"0.0.0.0/0\"]\n"
                + "allow-any-source = true\n");
        Files.writeString(dir.resolve("peers/open6.conf"), "id = open6\nmatch.sources = [\"8000::/1\"]\n");
        CommandRun accepted = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());
        assertEquals(0, accepted.exit(), accepted.err());
    }

    @Test
    void aConfigurationOverItsBoundsIsRefusedWithFileLineKeyAndTheLimit(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\n");
        Files.createDirectories(dir.resolve("peers"));
        Files.writeString(dir.resolve("peers/acme.conf"), "id = acme\nmatch.sources = [\"10.0.0.1\"]\nlimits = [\n"
                + "  { window = 1s, max = 10 }\n".repeat(65) + "]\n");
        Files.writeString(dir.resolve("peers/huge.conf"), "# padding\n".repeat(1_700_000));
        CommandRun result = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());
        assertEquals(1, result.exit(), result.err());
        assertTrue(result.err().contains("acme.conf:3: limits: 65 limits, over the limit of 64"), result.err());
        assertTrue(result.err().contains("huge.conf: 17000000 bytes, over the limit of 16777216 bytes (16 MiB) per"
                + " configuration file; not read"), result.err());
    }

    @Test
    void tlsFilesThatDoNotLoadAreErrorsWithFileLineAndKey(@TempDir Path dir) throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        certs.certificate("gw").dns("gw.example").write("chain");
        TestCertificates.Issued other = certs.certificate("other").write("other");
        Files.writeString(dir.resolve("ca.txt"), "not PEM\n");
        Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\nsip.listeners = [\n"
                + "  { transport = tls, host = \"127.0.0.1\", certificate = \"chain.pem\", private-key = \"other.key\" }\n"
                + "]\n");
        Files.createDirectories(dir.resolve("carriers"));
        Files.writeString(dir.resolve("carriers/c.conf"), "id = c\nuri = \"sips:127.0.0.9\"\ncps = 1\n"
                + "tls.ca-file = \"ca.txt\"\n");

        CommandRun result = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());

        assertEquals(1, result.exit(), result.err());
        assertTrue(result.err().contains("gateway.conf:3: sip.listeners[0].private-key: " + other.keyFile()
                + ": does not match the certificate in " + dir.resolve("chain.pem")), result.err());
        assertTrue(result.err().contains("c.conf:4: tls.ca-file: " + dir.resolve("ca.txt") + ": not a PEM file"),
                result.err());
        assertTrue(result.err().contains("2 error(s)"), result.err());
    }

    @Test
    void aCarrierHostThatDoesNotResolveIsAWarningNotAnError(@TempDir Path dir) throws Exception {
        try (LoopbackDns dns = LoopbackDns.start(60, LoopbackDns.host("known." + LoopbackDns.DOMAIN, "127.0.0.5"))) {
            Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\ndns.resolver = \"127.0.0.1:"
                    + dns.port() + "\"\n");
            Files.createDirectories(dir.resolve("carriers"));
            Files.writeString(dir.resolve("carriers/known.conf"),
                    "id = known\nuri = \"sip:known." + LoopbackDns.DOMAIN + "\"\ncps = 1\n");
            Files.writeString(dir.resolve("carriers/unknown.conf"),
                    "id = unknown\nuri = \"sip:unknown." + LoopbackDns.DOMAIN + "\"\ncps = 1\n");
            CommandRun result = CommandRun.of("check-config", "--config", dir.resolve("gateway.conf").toString());
            assertEquals(0, result.exit(), result.err());
            assertTrue(result.out().contains("OK"), result.out());
            assertTrue(result.err().contains("warning: carrier unknown: uri: unknown." + LoopbackDns.DOMAIN
                    + " does not resolve now"), result.err());
            assertFalse(result.err().contains("carrier known:"), result.err());
        }
    }
}
