package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A carrier's probe block: defaults, values, and each mistake at its file, line and key. */
class ProbeConfigTest {

    private static final String CARRIER_A = "id = carrier-a\nuri = \"sip:gw.a.example\"\ncps = 10\n";

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
        files.write("routes.conf", "routes = [\n  { prefix = \"+44\", carriers = [carrier-a] }\n]\n");
    }

    @Test
    void aCarrierWithoutProbeIsNotProbedAndAnEmptyBlockTakesTheDefaults() throws Exception {
        files.write("carriers/a.conf", CARRIER_A);
        assertEquals(Optional.empty(), files.load().carriers().get("carrier-a").probe());

        files.write("carriers/a.conf", CARRIER_A + "probe {}\n");
        assertEquals(Optional.of(new ProbeSettings(Duration.ofSeconds(10), Duration.ofSeconds(2), 3, 2, Set.of(503))),
                files.load().carriers().get("carrier-a").probe());
    }

    @Test
    void everyKeyIsRead() throws Exception {
        files.write("carriers/a.conf", CARRIER_A
                + "probe { interval = 5s, timeout = 1s, down-after = 4, up-after = 3, fail-codes = [503, 480] }\n");
        assertEquals(Optional.of(new ProbeSettings(Duration.ofSeconds(5), Duration.ofSeconds(1), 4, 3,
                Set.of(503, 480))), files.load().carriers().get("carrier-a").probe());
    }

    @Test
    void mistakesAreReportedAtTheirKey() {
        files.write("carriers/a.conf", CARRIER_A + "probe {\n  interval = 1s\n  timeout = 2s\n  down-after = 0\n"
                + "  up-after = many\n  fail-codes = [200]\n  intreval = 5s\n}\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("carriers/a.conf"), 6, "probe.timeout",
                "must not be longer than the probe interval (1000ms)");
        assertError(errors, files.path("carriers/a.conf"), 7, "probe.down-after", "must be between 1 and 100");
        assertError(errors, files.path("carriers/a.conf"), 8, "probe.up-after", "expected a whole number");
        assertError(errors, files.path("carriers/a.conf"), 9, "probe.fail-codes[0]", "must be between 300 and 699");
        assertError(errors, files.path("carriers/a.conf"), 10, "probe.intreval", "unknown key");
        assertEquals(5, errors.size(), errors.toString());
    }
}
