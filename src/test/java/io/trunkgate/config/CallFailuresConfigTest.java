package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A carrier's call-failures block: defaults, values, and each mistake at its file, line and key. */
class CallFailuresConfigTest {

    private static final String CARRIER_A = "id = carrier-a\nuri = \"sip:127.0.0.1:5080\"\ncps = 10\n";

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
        files.write("routes.conf", "routes = [\n  { prefix = \"+44\", carriers = [carrier-a] }\n]\n");
    }

    @Test
    void aCarrierFileWithoutTheBlockGoesDownAfterThreeTimeoutsForThirtySeconds() throws Exception {
        files.write("carriers/a.conf", CARRIER_A);
        CallFailures defaults = files.load().carriers().get("carrier-a").callFailures();
        assertEquals(new CallFailures(3, Set.of(), Duration.ofSeconds(30)), defaults);
        assertEquals(true, defaults.enabled());

        files.write("carriers/a.conf", CARRIER_A + "call-failures {}\n");
        assertEquals(defaults, files.load().carriers().get("carrier-a").callFailures());
    }

    @Test
    void everyKeyIsReadAndZeroTurnsItOff() throws Exception {
        files.write("carriers/a.conf", CARRIER_A
                + "call-failures { down-after = 5, codes = [503, 500], down-for = 2m }\n");
        assertEquals(new CallFailures(5, Set.of(503, 500), Duration.ofMinutes(2)),
                files.load().carriers().get("carrier-a").callFailures());

        files.write("carriers/a.conf", CARRIER_A + "call-failures.down-after = 0\n");
        assertEquals(false, files.load().carriers().get("carrier-a").callFailures().enabled());
    }

    @Test
    void mistakesAreReportedAtTheirKey() {
        files.write("carriers/a.conf", CARRIER_A + "call-failures {\n  down-after = 101\n  codes = [200, 503]\n"
                + "  down-for = 500ms\n  down-fro = 5s\n}\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("carriers/a.conf"), 5, "call-failures.down-after", "must be between 0 and 100");
        assertError(errors, files.path("carriers/a.conf"), 6, "call-failures.codes[0]", "must be between 300 and 699");
        assertError(errors, files.path("carriers/a.conf"), 7, "call-failures.down-for", "must be at least 1000ms");
        assertError(errors, files.path("carriers/a.conf"), 8, "call-failures.down-fro", "unknown key");
        assertEquals(4, errors.size(), errors.toString());
    }
}
