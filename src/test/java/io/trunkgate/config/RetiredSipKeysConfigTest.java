package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.trunkgate.testing.LogCapture;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sip.worker-threads and sip.queue-timeout, of the stack before the SIP loops: an old file loads, with a warning. */
class RetiredSipKeysConfigTest {

    @TempDir
    Path dir;
    private ConfigFiles files;

    @BeforeEach
    void setUp() {
        files = new ConfigFiles(dir);
    }

    private List<String> warnings() throws Exception {
        try (LogCapture log = LogCapture.of(GatewayFileReader.class)) {
            files.load();
            return log.events().stream().filter(e -> e.getLevel() == Level.WARN)
                    .map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @Test
    void anOldFileLoadsAndSaysEachKeyIsIgnored() throws Exception {
        files.write("gateway.conf", "sip { worker-threads = 32, queue-timeout = 1s }\n");
        List<String> warnings = warnings();
        assertEquals(2, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("sip.worker-threads is no longer used and is ignored"),
                warnings.get(0));
        assertTrue(warnings.get(1).startsWith("sip.queue-timeout is no longer used and is ignored"),
                warnings.get(1));
    }

    @Test
    void aFileWithoutThemSaysNothingOfThem() throws Exception {
        assertEquals(List.of(), warnings());
    }
}
