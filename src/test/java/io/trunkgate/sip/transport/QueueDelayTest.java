package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class QueueDelayTest {

    private static final Duration TARGET = Duration.ofMillis(40);

    private final AtomicLong nanos = new AtomicLong();
    private final QueueDelay delay = new QueueDelay(Duration.ofMillis(100), nanos::get);

    private void advanceMs(long ms) {
        nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    @Test
    void aStandingQueueIsOverloadAndABurstIsNot() {
        // a burst: some datagrams wait long, but the queue empties within the interval
        delay.record(90);
        delay.record(60);
        delay.record(2);
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET), "a burst that drained");
        // standing: every datagram of the interval waited over the target
        delay.record(45);
        delay.record(80);
        advanceMs(100);
        assertTrue(delay.overloaded(TARGET), "every datagram waited over 40 ms");
        assertEquals(45, delay.standingWaitMs());
        // it ends as soon as one interval's shortest wait is back under the target
        delay.record(41);
        delay.record(3);
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET));
    }

    @Test
    void anIdleQueueOrNoTargetIsNeverOverload() {
        delay.record(500);
        advanceMs(100);
        assertFalse(delay.overloaded(Duration.ZERO), "no target set");
        advanceMs(100);
        assertFalse(delay.overloaded(TARGET), "nothing taken in the last interval");
        delay.record(500);
        advanceMs(1_000);
        assertFalse(delay.overloaded(TARGET), "the only wait seen is from long ago");
    }
}
