package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the SIP front end accepts and how long it remembers dialogs: sip.max-*, sip.dialog-timeout. */
class SipLimitsConfigTest {

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    @Test
    void defaultsWhenLeftOut() throws Exception {
        assertEquals(new SipLimits(16 * 1024, 16, Duration.ofHours(12), Duration.ZERO, 200_000, Duration.ofSeconds(5)),
                files.load().sip().limits());
    }

    @Test
    void valuesAsWritten() throws Exception {
        files.write("gateway.conf", "sip { max-message-size = 8192, max-via-headers = 8, dialog-timeout = 4h\n"
                + "max-call-length = 3h, max-dialogs = 5000, transaction-linger = 32s, path-mtu = 9000 }\n");

        assertEquals(new SipLimits(8192, 8, Duration.ofHours(4), Duration.ofHours(3), 5000, Duration.ofSeconds(32),
                        9000),
                files.load().sip().limits());
    }

    @Test
    void mistakesAreReportedByKey() {
        files.write("gateway.conf", "sip.dialog-timeout = 30s\nsip.max-call-length = 3\n"
                + "sip.transaction-linger = 33s\nsip.path-mtu = 500\n");

        List<ConfigError> errors = files.errors();

        assertError(errors, files.path("gateway.conf"), 1, "sip.dialog-timeout", "must be at least");
        assertError(errors, files.path("gateway.conf"), 2, "sip.max-call-length", "needs a unit");
        assertError(errors, files.path("gateway.conf"), 3, "sip.transaction-linger", "must be at most 32000ms");
        assertError(errors, files.path("gateway.conf"), 4, "sip.path-mtu", "576");
        assertEquals(4, errors.size(), errors.toString());
    }
}
