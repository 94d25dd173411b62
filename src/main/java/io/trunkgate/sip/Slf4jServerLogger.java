package io.trunkgate.sip;

import gov.nist.core.ServerLogger;
import gov.nist.javax.sip.message.SIPMessage;
import java.util.Properties;
import javax.sip.SipStack;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** JAIN-SIP's message trace, at TRACE level of logger "gov.nist.messages" instead of a log file. */
public final class Slf4jServerLogger implements ServerLogger {

    private static final Logger log = LoggerFactory.getLogger("gov.nist.messages");

    @Override
    public void closeLogFile() {
        // no file
    }

    @Override
    public void logMessage(SIPMessage message, String from, String to, boolean sender, long time) {
        if (log.isTraceEnabled()) {
            log.trace("{} {} -> {}\n{}", sender ? "sent" : "received", from, to, message);
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
        log.debug("JAIN-SIP exception", ex);
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
