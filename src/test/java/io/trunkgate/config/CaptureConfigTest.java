package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The capture block of gateway.conf: off by default, values, and mistakes by file, line and key. */
class CaptureConfigTest {

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void offWhenLeftOut() throws Exception {
        assertEquals(Optional.empty(), files.load().capture());
    }

    @Test
    void onlyTheAddressIsNeeded() throws Exception {
        files.write("gateway.conf", "capture.address = \"homer.example.net:9060\"\n");

        assertEquals(Optional.of(new CaptureSettings("homer.example.net", 9060, CaptureSettings.Transport.UDP, 1,
                Optional.empty(), 10_000)), files.load().capture());
    }

    @Test
    void valuesAsWritten() throws Exception {
        files.write("gateway.conf", "capture {\n  address = \"[2001:db8::7]:9061\"\n  transport = TCP\n"
                + "  capture-id = 4294967295\n  password = \"s3cret\"\n  queue-size = 500\n}\n");

        assertEquals(Optional.of(new CaptureSettings("2001:db8::7", 9061, CaptureSettings.Transport.TCP,
                4294967295L, Optional.of("s3cret"), 500)), files.load().capture());
    }

    @Test
    void mistakesAreReportedByKey() {
        files.write("gateway.conf", "capture {\n  address = \"2001:db8::7\"\n  transport = tls\n"
                + "  capture-id = -1\n  password = \"\"\n  queue-size = 0\n  id = 7\n}\n");

        List<ConfigError> errors = files.errors();

        Path conf = files.path("gateway.conf");
        assertError(errors, conf, 2, "capture.address", "must be \"host:port\"");
        assertError(errors, conf, 3, "capture.transport", "must be one of udp, tcp");
        assertError(errors, conf, 4, "capture.capture-id", "must be between 0 and 4294967295");
        assertError(errors, conf, 5, "capture.password", "must not be empty");
        assertError(errors, conf, 6, "capture.queue-size", "must be between 1 and 1000000");
        assertError(errors, conf, 7, "capture.id", "unknown key");
        assertEquals(6, errors.size(), errors.toString());
    }

    @Test
    void settingsWithoutAnAddressAreRefused() {
        files.write("gateway.conf", "fleet-size = 1\ncapture {\n  capture-id = 7\n}\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 2, "capture.address", "required key missing");
        assertEquals(1, errors.size(), errors.toString());
    }

    @Test
    void aPortOutOfRangeIsRefused() {
        files.write("gateway.conf", "capture.address = \"192.0.2.7:70000\"\n");

        assertError(files.errors(), files.path("gateway.conf"), 1, "capture.address", "port out of range");
    }
}
