package io.trunkgate.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import java.util.Set;
import org.slf4j.LoggerFactory;

/** Every log event of the process while it is open (root logger), for tests that bound what input can log. */
public final class LogCapture implements AutoCloseable {

    /** The call log and routing log a valid call writes: not a reaction to bad input. */
    private static final Set<String> CALL_LOGGERS = Set.of("trunkgate.calls", "io.trunkgate.route.CallRouting");

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private LogCapture() {
        appender.start();
        root.addAppender(appender);
    }

    public static LogCapture start() {
        return new LogCapture();
    }

    /** What bad input made the process log: everything but the lines valid calls write. */
    public List<ILoggingEvent> reactions() {
        synchronized (appender.list) {
            return appender.list.stream().filter(e -> !CALL_LOGGERS.contains(e.getLoggerName())).toList();
        }
    }

    /** At most {@code messages} lines for that many bad messages, none with a stack trace or a line break. */
    public void assertAtMostOneCleanLinePer(int messages) {
        List<ILoggingEvent> lines = reactions();
        String shown = String.join("\n", lines.stream().map(ILoggingEvent::getFormattedMessage).toList());
        assertTrue(lines.size() <= messages, lines.size() + " log lines for " + messages + " messages:\n" + shown);
        for (ILoggingEvent line : lines) {
            assertTrue(line.getThrowableProxy() == null, "a stack trace in the log: " + line.getFormattedMessage());
            assertTrue(line.getFormattedMessage().indexOf('\n') < 0 && line.getFormattedMessage().indexOf('\r') < 0,
                    "a line break in a log line: " + line.getFormattedMessage());
        }
    }

    @Override
    public void close() {
        root.detachAppender(appender);
    }
}
