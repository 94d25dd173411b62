package io.trunkgate.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * Every log event of one logger (the root by default) while it is open. Events arrive on the gateway's threads
 * while a test reads them, so every read is a snapshot taken under the capture's lock.
 */
public final class LogCapture implements AutoCloseable {

    /** The call log and routing log a valid call writes: not a reaction to bad input. */
    private static final Set<String> CALL_LOGGERS = Set.of("trunkgate.calls", "io.trunkgate.route.CallRouting");

    private final List<ILoggingEvent> events = new ArrayList<>();
    private final Logger logger;
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            event.prepareForDeferredProcessing();
            synchronized (events) {
                events.add(event);
                events.notifyAll();
            }
        }
    };

    private LogCapture(Logger logger) {
        this.logger = logger;
        appender.start();
        logger.addAppender(appender);
    }

    /** Captures the whole process (the root logger). */
    public static LogCapture start() {
        return of(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    public static LogCapture of(String loggerName) {
        return new LogCapture((Logger) LoggerFactory.getLogger(loggerName));
    }

    public static LogCapture of(Class<?> loggerOf) {
        return of(loggerOf.getName());
    }

    /** What has been logged so far, in order. */
    public List<ILoggingEvent> events() {
        synchronized (events) {
            return List.copyOf(events);
        }
    }

    /** Blocks until an event matching {@code wanted} has been logged or {@code timeout} passes; says which. */
    public boolean await(Predicate<ILoggingEvent> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (events) {
            int seen = 0;
            while (true) {
                for (; seen < events.size(); seen++) {
                    if (wanted.test(events.get(seen))) {
                        return true;
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                events.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** What bad input made the process log: everything but the lines valid calls write. */
    public List<ILoggingEvent> reactions() {
        return events().stream().filter(e -> !CALL_LOGGERS.contains(e.getLoggerName())).toList();
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
        logger.detachAppender(appender);
        appender.stop();
    }
}
