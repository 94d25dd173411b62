package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** plugins-dir and the HTTP reroute hook's keys. */
class RerouteConfigTest {

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void defaultsAndValues() throws Exception {
        files.write("gateway.conf", "fleet-size = 1\n");
        assertEquals(RerouteSettings.NONE, files.load().reroute());

        Files.createDirectories(dir.resolve("plugins"));
        files.write("gateway.conf", "plugins-dir = plugins\nrouting.reroute-url = \"http://127.0.0.1:9000/r\"\n"
                + "routing.reroute-timeout = 20ms\nrouting.reroute-max-concurrent = 8\n");
        assertEquals(new RerouteSettings(Optional.of(dir.resolve("plugins")),
                Optional.of(URI.create("http://127.0.0.1:9000/r")), Duration.ofMillis(20), 8), files.load().reroute());
    }

    @Test
    void mistakesAreReportedAtTheirKey() {
        files.write("gateway.conf", "plugins-dir = nowhere\nrouting.reroute-url = \"ftp://host/x\"\n"
                + "routing.reroute-timeout = 20\nrouting.reroute-max-concurrent = 0\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "plugins-dir", "no such directory");
        assertError(errors, files.path("gateway.conf"), 2, "routing.reroute-url", "must be an http:// or https:// URL");
        assertError(errors, files.path("gateway.conf"), 3, "routing.reroute-timeout", "needs a unit");
        assertError(errors, files.path("gateway.conf"), 4, "routing.reroute-max-concurrent", "must be between 1 and");
        assertEquals(4, errors.size(), errors.toString());
    }
}
