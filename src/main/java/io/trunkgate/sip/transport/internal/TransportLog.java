package io.trunkgate.sip.transport.internal;

import io.trunkgate.throttle.ThrottledLog;
import java.time.Duration;
import org.slf4j.LoggerFactory;

/** What the transports say about the connections and messages they refuse: peers decide how much, so throttled. */
final class TransportLog {

    static final ThrottledLog LOG = new ThrottledLog(LoggerFactory.getLogger("io.trunkgate.sip.transport"), 10,
            Duration.ofSeconds(1));

    private TransportLog() {
    }
}
