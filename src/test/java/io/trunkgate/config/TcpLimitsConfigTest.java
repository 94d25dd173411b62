package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sip.tcp.* keys of gateway.conf: defaults, values and mistakes. */
class TcpLimitsConfigTest {

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void defaultsWhenLeftOut() throws Exception {
        assertEquals(new TcpLimits(Duration.ofSeconds(120), Duration.ofSeconds(10), 1000, 32),
                files.load().sip().tcp());
    }

    @Test
    void valuesAsWritten() throws Exception {
        files.write("gateway.conf", "sip.tcp { idle-timeout = 5m, message-timeout = 2s, max-connections = 50\n"
                + "max-connections-per-source = 3 }\n");

        assertEquals(new TcpLimits(Duration.ofMinutes(5), Duration.ofSeconds(2), 50, 3), files.load().sip().tcp());
    }

    @Test
    void mistakesAreReportedByKey() {
        files.write("gateway.conf", "sip.tcp.idle-timeout = 120\nsip.tcp.message-timeout = 10ms\n"
                + "sip.tcp.max-connections = 0\nsip.tcp.max-connections-per-source = many\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "sip.tcp.idle-timeout", "needs a unit");
        assertError(errors, files.path("gateway.conf"), 2, "sip.tcp.message-timeout", "must be at least 1000ms");
        assertError(errors, files.path("gateway.conf"), 3, "sip.tcp.max-connections", "must be at least 1");
        assertError(errors, files.path("gateway.conf"), 4, "sip.tcp.max-connections-per-source", "whole number");
        assertEquals(4, errors.size(), errors.toString());
    }
}
