package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.transport.internal.StreamFramer.Progress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The incomplete-message timeout on a manual clock, driven by the framer's reports of progress. */
class IncompleteMessageTimeoutTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final AtomicLong nanos = new AtomicLong();
    private final EmbeddedChannel channel;

    IncompleteMessageTimeoutTest() {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(new IncompleteMessageTimeout(TIMEOUT, Transport.TCP, nanos::get));
    }

    private void advance(Duration by) {
        nanos.addAndGet(by.toNanos());
        channel.advanceTimeBy(by.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    private void report(Progress progress) {
        channel.pipeline().fireUserEventTriggered(progress);
    }

    @Test
    void aMessageDribbledInIsClosedTenSecondsAfterItsFirstByte() {
        report(Progress.STARTED);
        for (int second = 1; second < 10; second++) {
            advance(Duration.ofSeconds(1));
            report(Progress.GOING_ON);
        }
        advance(Duration.ofMillis(999));
        assertTrue(channel.isOpen());
        advance(Duration.ofMillis(1));
        assertFalse(channel.isOpen(), "a byte a second keeps a connection from idling, not from this");
    }

    @Test
    void eachMessageHasItsOwnTenSecondsAndNoneUnderWayMeansNoTimeout() {
        report(Progress.STARTED);
        advance(Duration.ofSeconds(9));
        report(Progress.STARTED);
        advance(Duration.ofSeconds(9));
        assertTrue(channel.isOpen(), "the second message started 9 s ago");
        report(Progress.NONE);
        advance(Duration.ofMinutes(5));
        assertTrue(channel.isOpen(), "nothing under way");
        report(Progress.STARTED);
        advance(TIMEOUT);
        assertFalse(channel.isOpen());
    }
}
