package io.trunkgate.testing;

import gov.nist.core.ServerLogger;
import gov.nist.javax.sip.message.SIPMessage;
import io.trunkgate.throttle.ThrottledLog;
import java.util.Properties;
import javax.sip.SipStack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JAIN-SIP's message trace, at TRACE level of logger "gov.nist.messages" instead of a log file: each message on
 * one line with its line breaks escaped, since its text is whatever the peer sent.
 */
public final class Slf4jServerLogger implements ServerLogger {

    private static final Logger log = LoggerFactory.getLogger("gov.nist.messages");
    private static final int MAX_MESSAGE_CHARS = 70_000;

    @Override
    public void closeLogFile() {
        // no file
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, boolean sender, long time) {
        if (log.isTraceEnabled()) {
            log.trace("{} {} -> {}: {}", sender ? "sent" : "received", from, to,
                    ThrottledLog.oneLine(message.toString(), MAX_MESSAGE_CHARS));
        }
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender, long time) {
        logMessage(message, from, to, sender, time);
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, String status, boolean sender) {
        logMessage(message, from, to, sender, 0);
    }

    @Override
    public void logException(Exception ex) {
        if (log.isDebugEnabled()) {
            log.debug(ThrottledLog.oneLine("JAIN-SIP exception: " + ex, ThrottledLog.MAX_CHARS));
        }
    }

    @Override
    public void setStackProperties(Properties stackProperties) {
        // nothing to configure
    }

    @Override
    public void setSipStack(SipStack sipStack) {
        // not needed
    }
}
