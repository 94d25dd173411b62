package io.trunkgate.throttle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.text.ParseException;
import java.time.Duration;
import java.util.List;
import io.trunkgate.testing.LogCapture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/** Lines a peer controls are single, escaped, throttled, and what is held back is counted. */
class ThrottledLogTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger("test.throttled");
    private LogCapture captured;

    @BeforeEach
    void capture() {
        captured = LogCapture.of(logger.getName());
        logger.setLevel(ch.qos.logback.classic.Level.INFO);
    }

    @AfterEach
    void release() {
        captured.close();
    }

    @Test
    void oneLineEscapesLineBreaksControlAndFormatCharacters() {
        assertEquals("a\\r\\nINJECTED\\tb\\\\c\\u0000\\u001b[31m\\u0085\\u2028\\u202e",
                ThrottledLog.oneLine("a\r\nINJECTED\tb\\c\u0000\u001b[31m\u0085\u2028\u202e", 100));
        assertEquals("abcde... (10 characters)", ThrottledLog.oneLine("abcdefghij", 5));
        assertEquals("caf\u00e9", ThrottledLog.oneLine("caf\u00e9", 100));
    }

    @Test
    void aFloodIsThrottledAndCountedAndExceptionsGetNoStackTrace() throws InterruptedException {
        ThrottledLog log = new ThrottledLog(logger, 5, Duration.ofSeconds(1));
        ParseException cause = new ParseException("bad header\r\nX-Forged: yes", 3);

        long started = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            log.log(Level.ERROR, "bad message " + i + "\nINVITE sip:x SIP/2.0", cause);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        captured.await(e -> e.getFormattedMessage().contains("suppressed"), Duration.ofSeconds(3));

        List<ILoggingEvent> lines = captured.events();
        ILoggingEvent summary = lines.get(lines.size() - 1);
        int written = lines.size() - 1;
        assertTrue(written >= 5 && written <= 5 + 5 * seconds + 1, written + " lines written in " + seconds + " s");
        assertEquals(1000 - written + " more log lines suppressed (over 5 a second)", summary.getFormattedMessage());
        assertEquals(ch.qos.logback.classic.Level.ERROR, summary.getLevel(), "as loud as what it stands for");
        for (ILoggingEvent line : lines) {
            assertNull(line.getThrowableProxy(), "a stack trace");
            assertTrue(!line.getFormattedMessage().contains("\n") && !line.getFormattedMessage().contains("\r"),
                    line.getFormattedMessage());
        }
        assertEquals("bad message 0\\nINVITE sip:x SIP/2.0: java.text.ParseException: bad header\\r\\nX-Forged: yes",
                lines.get(0).getFormattedMessage());
    }

    @Test
    void debugIsEscapedButNotThrottled() {
        logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
        ThrottledLog log = new ThrottledLog(logger, 1, Duration.ofSeconds(1));

        for (int i = 0; i < 50; i++) {
            log.log(Level.DEBUG, "line\n" + i);
        }

        assertEquals(50, captured.events().size());
        assertEquals("line\\n49", captured.events().get(49).getFormattedMessage());
    }
}
