package io.trunkgate.testing;

import gov.nist.core.StackLogger;
import io.trunkgate.throttle.ThrottledLog;
import java.time.Duration;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Routes JAIN-SIP's own logging to SLF4J (logger "gov.nist"), so logback configures it like the rest. The stack
 * writes received text into its messages and logs per received message, so every line goes through a
 * {@link ThrottledLog}: one escaped line each, exceptions without their stack trace, at most
 * {@value #LINES_PER_SECOND} lines a second at INFO and above: otherwise each malformed request a stranger sends
 * becomes an ERROR with a stack trace and the stranger's text at the start of a log line.
 */
public final class Slf4jStackLogger implements StackLogger {

    private static final int LINES_PER_SECOND = 10;
    private static final Logger log = LoggerFactory.getLogger("gov.nist");
    private static final ThrottledLog lines = new ThrottledLog(log, LINES_PER_SECOND, Duration.ofSeconds(1));

    @Override
    public void logStackTrace() {
        if (log.isTraceEnabled()) {
            log.trace("stack trace", new Throwable());
        }
    }

    @Override
    public void logStackTrace(int traceLevel) {
        logStackTrace();
    }

    @Override
    public int getLineCount() {
        return 0;
    }

    @Override
    public void logException(Throwable ex) {
        lines.log(Level.WARN, "JAIN-SIP exception", ex);
    }

    @Override
    public void logDebug(String message) {
        lines.log(Level.DEBUG, message);
    }

    @Override
    public void logDebug(String message, Exception ex) {
        lines.log(Level.DEBUG, message, ex);
    }

    @Override
    public void logTrace(String message) {
        lines.log(Level.TRACE, message);
    }

    @Override
    public void logFatalError(String message) {
        lines.log(Level.ERROR, message);
    }

    @Override
    public void logError(String message) {
        lines.log(Level.ERROR, message);
    }

    @Override
    public boolean isLoggingEnabled() {
        return log.isInfoEnabled();
    }

    @Override
    public boolean isLoggingEnabled(int logLevel) {
        if (logLevel >= TRACE_TRACE) {
            return log.isTraceEnabled();
        }
        if (logLevel >= TRACE_DEBUG) {
            return log.isDebugEnabled();
        }
        if (logLevel >= TRACE_INFO) {
            return log.isInfoEnabled();
        }
        if (logLevel >= TRACE_WARN) {
            return log.isWarnEnabled();
        }
        return log.isErrorEnabled();
    }

    @Override
    public void logError(String message, Exception ex) {
        lines.log(Level.ERROR, message, ex);
    }

    @Override
    public void logWarning(String message) {
        lines.log(Level.WARN, message);
    }

    @Override
    public void logInfo(String message) {
        lines.log(Level.INFO, message);
    }

    @Override
    public void disableLogging() {
        // levels are logback's to set
    }

    @Override
    public void enableLogging() {
        // levels are logback's to set
    }

    @Override
    public void setBuildTimeStamp(String buildTimeStamp) {
        log.debug("JAIN-SIP build {}", buildTimeStamp);
    }

    @Override
    public void setStackProperties(Properties stackProperties) {
        // nothing to configure: logback owns the output
    }

    @Override
    public String getLoggerName() {
        return log.getName();
    }
}
