package io.trunkgate.pace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The mapping of Redis server time to local nano time, on times the test gives it. */
class ServerClockTest {

    private static final long MS = 1_000_000;
    private static final long SERVER_START_MICROS = 1_767_225_600_000_000L;

    /** Local nano time {@code localMs} after the start, at which the server clock read {@code serverMs} after its. */
    private static void reply(ServerClock clock, long serverMs, long localMs) {
        clock.observe(SERVER_START_MICROS + serverMs * 1000, localMs * MS);
    }

    private static long localMsOf(ServerClock clock, long serverMs) {
        return clock.toLocalNanos(SERVER_START_MICROS + serverMs * 1000) / MS;
    }

    @Test
    void theFastestReplySetsTheOffsetSoSlowRepliesAddNoDelay() {
        ServerClock clock = new ServerClock(0);
        reply(clock, 0, 5);    // 5 ms in transit
        reply(clock, 100, 101); // 1 ms: the best estimate
        reply(clock, 200, 230); // a slow reply
        assertEquals(1001, localMsOf(clock, 1000));
    }

    @Test
    void theOffsetFollowsDriftWithinTwoEpochs() {
        ServerClock clock = new ServerClock(0);
        reply(clock, 0, 1);
        // the local clock drifts 9 ms ahead; the next epoch's replies alone would say 10 ms
        reply(clock, 10_500, 10_510);
        assertEquals(20_501, localMsOf(clock, 20_500), "the previous epoch's minimum still counts");
        reply(clock, 21_000, 21_010);
        assertEquals(30_510, localMsOf(clock, 30_500), "two epochs on, it no longer does");
    }
}
