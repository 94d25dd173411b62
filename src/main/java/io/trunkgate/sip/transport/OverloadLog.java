package io.trunkgate.sip.transport;

import io.trunkgate.throttle.ThrottledLog;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/** Where overload control logs: how busy the gateway is changes fast, so throttled. */
final class OverloadLog {

    static final ThrottledLog LOG = new ThrottledLog(LoggerFactory.getLogger(OverloadLog.class.getPackageName()),
            10, Duration.ofSeconds(1));

    private OverloadLog() {
    }
}
