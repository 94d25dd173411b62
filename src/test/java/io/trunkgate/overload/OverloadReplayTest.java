package io.trunkgate.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The controller driven on a manual clock by traces of a small model of the gateway, millisecond by millisecond:
 * steady load, twice the capacity, a 1 s stall, a cold start. The model: one core of workers serves received
 * messages in order; a call let in costs {@link #INVITE_MS} when its INVITE is handled and brings
 * {@link #LATER_MS} more twice over the next {@link #LATER_AFTER_MS} (the carrier's answer, the ACK); a shed call
 * costs {@link #SHED_MS} on the same core. A worker that takes a message reports how long it waited; a new INVITE
 * is put to the controller with the backlog ahead of it. During a stall nothing is read: the INVITEs that came
 * meanwhile are put to it at once when it ends, each with its own age ahead of it. The core reports the time it was
 * busy every 100 ms; a stall counts as idle (as a collector's pause does on a loop's clock).
 */
class OverloadReplayTest {

    private static final Duration TARGET = Duration.ofMillis(50);
    private static final double INVITE_MS = 0.8;
    private static final double LATER_MS = 0.6;
    private static final int LATER_AFTER_MS = 300;
    private static final double SHED_MS = 0.05;
    /** Calls a second one core carries: 500. */
    private static final int CAPACITY = (int) Math.round(1000 / (INVITE_MS + 2 * LATER_MS));

    /** What the model saw in one run: per millisecond, and the waits of the calls let in. */
    private static final class Trace {
        final int[] offered;
        final int[] shed;
        final double[] backlogMs;
        final double[] admittedWaitMs;
        int admittedCount;

        Trace(int ms) {
            offered = new int[ms];
            shed = new int[ms];
            backlogMs = new double[ms];
            admittedWaitMs = new double[ms * 4];
        }

        int offered(int fromMs, int toMs) {
            return Arrays.stream(offered, fromMs, toMs).sum();
        }

        int shed(int fromMs, int toMs) {
            return Arrays.stream(shed, fromMs, toMs).sum();
        }

        /** The first millisecond from {@code fromMs} with a call shed; -1 if none. */
        int firstShed(int fromMs) {
            for (int ms = fromMs; ms < shed.length; ms++) {
                if (shed[ms] > 0) {
                    return ms;
                }
            }
            return -1;
        }

        /** The last millisecond with a call shed; -1 if none. */
        int lastShed() {
            for (int ms = shed.length - 1; ms >= 0; ms--) {
                if (shed[ms] > 0) {
                    return ms;
                }
            }
            return -1;
        }

        /** The {@code share} quantile of the waits ahead of the calls let in from the {@code skip}-th on. */
        double admittedWait(int skip, double share) {
            double[] waits = Arrays.copyOfRange(admittedWaitMs, skip, admittedCount);
            Arrays.sort(waits);
            return waits.length == 0 ? 0 : waits[(int) Math.min(waits.length - 1, waits.length * share)];
        }
    }

    /**
     * Runs the model for {@code ms} milliseconds: {@code callsPerSecond} new calls a second offered at each
     * millisecond, {@code speed} the share of the core's full speed the gateway has at each (0: stalled).
     */
    private static Trace replay(int ms, IntToDoubleFunction callsPerSecond, IntToDoubleFunction speed) {
        AtomicLong nanos = new AtomicLong(TimeUnit.SECONDS.toNanos(1_000));
        OverloadController overload = new OverloadController(() -> OverloadSettings.of(TARGET, 100_000, 0),
                nanos::get);
        LoopMeter loop = overload.loopMeter();
        double busyMs = 0;
        Trace trace = new Trace(ms);
        double[] later = new double[LATER_AFTER_MS + 1];
        Deque<Integer> unread = new ArrayDeque<>();
        double backlog = 0;
        double arrivals = 0;
        for (int t = 0; t < ms; t++) {
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
            double rate = speed.applyAsDouble(t);
            arrivals += callsPerSecond.applyAsDouble(t) / 1000;
            for (; arrivals >= 1; arrivals--) {
                unread.add(t);
                trace.offered[t]++;
            }
            backlog += later[t % later.length];
            later[t % later.length] = 0;
            if (rate > 0) {
                while (!unread.isEmpty()) {
                    int arrived = unread.poll();
                    double waitAhead = backlog / rate + (t - arrived);
                    if (overload.shed(0, false, Duration.ofNanos((long) (waitAhead * 1e6))).isPresent()) {
                        trace.shed[t]++;
                        backlog += SHED_MS;
                    } else {
                        trace.admittedWaitMs[trace.admittedCount++] = waitAhead;
                        backlog += INVITE_MS;
                        later[(t + LATER_AFTER_MS / 2) % later.length] += LATER_MS;
                        later[(t + LATER_AFTER_MS) % later.length] += LATER_MS;
                    }
                }
                if (backlog > 0) {
                    overload.messageWaited(Math.round(backlog / rate));
                }
                busyMs += Math.min(1, backlog / rate);
                backlog = Math.max(0, backlog - rate);
            }
            if (t % 100 == 0) {
                loop.sample(Math.round(busyMs * 1e6), nanos.get());
            }
            trace.backlogMs[t] = rate > 0 ? backlog / rate : backlog;
        }
        return trace;
    }

    private static IntToDoubleFunction steady(double value) {
        return t -> value;
    }

    @Test
    void steadyLoadIsNeverShed() {
        Trace trace = replay(20_000, steady(CAPACITY * 0.7), steady(1));
        assertEquals(0, trace.shed(0, 20_000), "shed at 70% of the capacity");
        assertTrue(trace.admittedWait(0, 0.99) < TARGET.toMillis() / 5, "99% wait " + trace.admittedWait(0, 0.99));
    }

    @Test
    void twiceTheCapacityIsShedAtOnceAndTheCallsLetInWaitLittle() {
        int start = 2_000;
        int end = 22_000;
        Trace trace = replay(end, t -> t < start ? CAPACITY * 0.7 : CAPACITY * 2, steady(1));
        assertEquals(0, trace.shed(0, start), "before");
        int firstShed = trace.firstShed(start);
        assertTrue(firstShed >= 0 && firstShed - start <= 500, "first shed " + (firstShed - start) + " ms in");
        int settled = start + 2_000;
        double onset = Arrays.stream(trace.backlogMs, start, settled).max().orElse(0);
        assertTrue(onset < 4 * TARGET.toMillis(), "the backlog as shedding starts: at most " + onset + " ms");
        // settled: the excess shed, the calls let in held near the capacity, and they wait little
        int letIn = trace.offered(settled, end) - trace.shed(settled, end);
        double perSecond = letIn / ((end - settled) / 1000.0);
        assertTrue(perSecond > CAPACITY * 0.85 && perSecond <= CAPACITY,
                "let in " + perSecond + " a second at a capacity of " + CAPACITY);
        int skip = trace.admittedCount - letIn;
        assertTrue(trace.admittedWait(skip, 0.5) < TARGET.toMillis() / 5, "median wait " + trace.admittedWait(skip, 0.5));
        assertTrue(trace.admittedWait(skip, 0.99) < 1.5 * TARGET.toMillis(),
                "99% wait " + trace.admittedWait(skip, 0.99));
        double backlog = Arrays.stream(trace.backlogMs, settled, end).max().orElse(0);
        assertTrue(backlog < 1.5 * TARGET.toMillis(), "the backlog stays short: at most " + backlog + " ms");
    }

    @Test
    void aStallOfOneSecondIsShedAtItsEndAndRecovers() {
        int stall = 5_000;
        int end = stall + 1_000;
        Trace trace = replay(30_000, steady(CAPACITY * 0.6), t -> t >= stall && t < end ? 0 : 1);
        assertEquals(0, trace.shed(0, end), "before and during the stall nothing is decided");
        int shedAtEnd = trace.shed(end, end + 1);
        assertTrue(shedAtEnd > 0 && shedAtEnd < trace.offered(stall, end),
                "the INVITEs that came during the stall, read at its end: the older shed, the youngest let in; shed "
                        + shedAtEnd + " of " + trace.offered(stall, end));
        int lastShed = trace.lastShed();
        assertTrue(lastShed - end < 1_000, "shedding stopped " + (lastShed - end) + " ms after the stall");
        double after = Arrays.stream(trace.backlogMs, end + 1_000, 30_000).max().orElse(0);
        assertTrue(after < TARGET.toMillis(), "a second after the stall the backlog stays under the target: " + after);
    }

    @Test
    void aShortPauseAsTheOfferGrowsHoldsNoLimitUnderTheCapacity() {
        // a fifth of the capacity, then four fifths; as the step comes the gateway runs at a quarter speed for 300 ms
        int step = 5_000;
        Trace trace = replay(30_000, t -> t < step ? CAPACITY * 0.2 : CAPACITY * 0.8,
                t -> t >= step && t < step + 300 ? 0.25 : 1);
        assertEquals(0, trace.shed(0, step), "before the step");
        int settled = step + 2_000;
        int shed = trace.shed(settled, 30_000);
        assertTrue(shed <= trace.offered(settled, 30_000) / 100, "from 2 s after the step, shed " + shed + " of "
                + trace.offered(settled, 30_000) + " offered within the capacity");
    }

    @Test
    void aColdStartIsProtectedAndShedsNothingOnceWarm() {
        // a fifth of the full speed at first, full speed after ten seconds
        Trace trace = replay(30_000, steady(CAPACITY * 0.6), t -> Math.min(1, 0.2 + 0.8 * t / 10_000.0));
        assertTrue(trace.shed(0, 5_000) > 0, "cold: shed");
        assertTrue(trace.admittedWait(0, 0.99) < TARGET.toMillis(), "99% wait " + trace.admittedWait(0, 0.99));
        int lastShed = trace.lastShed();
        assertTrue(lastShed < 20_000, "shedding stopped at " + lastShed + " ms");
    }
}
