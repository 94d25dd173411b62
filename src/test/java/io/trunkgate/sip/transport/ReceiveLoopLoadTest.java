package io.trunkgate.sip.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReceiveLoopLoadTest {

    private static final long MS = Duration.ofMillis(1).toNanos();
    private static final long WAITED = ReceiveLoopLoad.WAITED_NANOS + 1;

    private final AtomicLong now = new AtomicLong(1_000 * MS);
    private final ReceiveLoopLoad load = new ReceiveLoopLoad(Duration.ofMillis(10), 0.25, now::get);

    @Test
    void aQuarterOfEachWindowMayBeSpentHandlingAndANewWindowStartsAfresh() {
        long start = load.startHandling();
        assertEquals(now.get(), start);
        now.addAndGet(2 * MS);
        load.handledSince(start);
        start = load.startHandling();
        assertEquals(now.get(), start, "2 of 2.5 ms spent");
        now.addAndGet(MS);
        load.handledSince(start);
        now.addAndGet(6 * MS);
        assertEquals(-1, load.startHandling(), "3 ms spent in a window of 10");
        now.addAndGet(MS);
        assertEquals(now.get(), load.startHandling(), "the next window");
    }

    @Test
    void aLoopWhoseReadsFindDatagramsWaitingLeavesTheHandlingToTheWorkersForAWindow() {
        for (int i = 0; i < 10; i++) {
            load.read(i < 6 ? 1_000 : WAITED);
            now.addAndGet(MS / 2);
        }
        now.addAndGet(6 * MS);
        assertEquals(-1, load.startHandling(), "6 of 10 reads found a datagram waiting");
        load.read(WAITED);
        load.read(WAITED);
        load.read(1_000);
        now.addAndGet(10 * MS);
        assertEquals(now.get(), load.startHandling(), "2 of 3 reads waited");
        now.addAndGet(30 * MS);
        assertEquals(now.get(), load.startHandling(), "nothing read for a while");
    }

    @Test
    void aShareOutsideZeroToOneIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ReceiveLoopLoad(Duration.ofMillis(10), 1.5, now::get));
    }
}
