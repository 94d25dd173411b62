package io.trunkgate.sip;

import gov.nist.core.StackLogger;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Routes JAIN-SIP's own logging to SLF4J (logger "gov.nist"), so logback configures it like the rest. */
public final class Slf4jStackLogger implements StackLogger {

    private static final Logger log = LoggerFactory.getLogger("gov.nist");

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
        log.warn("JAIN-SIP exception", ex);
    }

    @Override
    public void logDebug(String message) {
        log.debug(message);
    }

    @Override
    public void logDebug(String message, Exception ex) {
        log.debug(message, ex);
    }

    @Override
    public void logTrace(String message) {
        log.trace(message);
    }

    @Override
    public void logFatalError(String message) {
        log.error(message);
    }

    @Override
    public void logError(String message) {
        log.error(message);
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
        log.error(message, ex);
    }

    @Override
    public void logWarning(String message) {
        log.warn(message);
    }

    @Override
    public void logInfo(String message) {
        log.info(message);
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
