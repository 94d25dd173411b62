package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.stack.SIPStackTimerTask;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** JAIN-SIP's timer on a wheel: the stack's timers run, repeat and cancel as on its own; a tick's run together. */
class CoarseSipTimerTest {

    private final CoarseSipTimer timer = new CoarseSipTimer();

    CoarseSipTimerTest() {
        timer.start(null, null);
    }

    @AfterEach
    void stop() {
        timer.stop();
    }

    @Test
    void aTaskRunsOnceNotBeforeItsDelay() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        AtomicLong ranAfterNanos = new AtomicLong();
        long start = System.nanoTime();
        timer.schedule(task(() -> {
            ranAfterNanos.set(System.nanoTime() - start);
            runs.incrementAndGet();
            ran.countDown();
        }), 50);
        assertTrue(ran.await(5, TimeUnit.SECONDS), "ran");
        assertTrue(ranAfterNanos.get() >= TimeUnit.MILLISECONDS.toNanos(50), "ran after " + ranAfterNanos.get() + " ns");
        CountDownLatch later = new CountDownLatch(1);
        timer.schedule(task(later::countDown), 100);
        assertTrue(later.await(5, TimeUnit.SECONDS));
        assertEquals(1, runs.get(), "a one-shot task ran again");
    }

    @Test
    void aPeriodicTaskRepeatsUntilCancelledAndCleansUpOnce() throws Exception {
        CountDownLatch thrice = new CountDownLatch(3);
        AtomicInteger cleanUps = new AtomicInteger();
        AtomicInteger runs = new AtomicInteger();
        SIPStackTimerTask periodic = new SIPStackTimerTask() {
            @Override
            public void runTask() {
                runs.incrementAndGet();
                thrice.countDown();
            }

            @Override
            public void cleanUpBeforeCancel() {
                cleanUps.incrementAndGet();
            }

            @Override
            public Object getThreadHash() {
                return null;
            }
        };
        timer.scheduleWithFixedDelay(periodic, 0, 20);
        assertTrue(thrice.await(5, TimeUnit.SECONDS), "ran three times");
        assertTrue(timer.cancel(periodic));
        assertFalse(timer.cancel(periodic), "cancelled twice");
        int runsAtCancel = runs.get();
        // a task scheduled after the cancel runs after any tick the periodic one could still have been in
        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(task(after::countDown), 100);
        assertTrue(after.await(5, TimeUnit.SECONDS));
        assertTrue(runs.get() <= runsAtCancel + 1, "runs after the cancel: " + (runs.get() - runsAtCancel));
        assertEquals(1, cleanUps.get());
    }

    @Test
    void aCancelledTaskDoesNotRun() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        SIPStackTimerTask cancelled = task(runs::incrementAndGet);
        timer.schedule(cancelled, 50);
        assertTrue(timer.cancel(cancelled));
        CountDownLatch after = new CountDownLatch(1);
        timer.schedule(task(after::countDown), 150);
        assertTrue(after.await(5, TimeUnit.SECONDS));
        assertEquals(0, runs.get());
    }

    /**
     * Timers due within one tick run together, in one wake-up of the timer thread: set 1 to 15 ms ahead from a
     * task (which runs at a tick), they run at the next tick or the one after it (when this one woke late), back
     * to back in each. java.util.Timer, JAIN-SIP's default, runs each when it is due, waking for each: one group
     * 14 ms long.
     */
    @Test
    void timersDueInOneTickRunTogether() throws Exception {
        int timers = 15;
        CountDownLatch ran = new CountDownLatch(timers);
        List<Long> ranAt = new CopyOnWriteArrayList<>();
        timer.schedule(task(() -> {
            for (int i = 1; i <= timers; i++) {
                timer.schedule(task(() -> {
                    ranAt.add(System.nanoTime());
                    ran.countDown();
                }), i);
            }
        }), 0);
        assertTrue(ran.await(5, TimeUnit.SECONDS));
        List<Long> times = new ArrayList<>(ranAt);
        Collections.sort(times);
        long gap = TimeUnit.MILLISECONDS.toNanos(3);
        List<Long> groupSpansUs = new ArrayList<>();
        long groupStart = times.get(0);
        for (int i = 1; i <= times.size(); i++) {
            if (i == times.size() || times.get(i) - times.get(i - 1) > gap) {
                groupSpansUs.add(TimeUnit.NANOSECONDS.toMicros(times.get(i - 1) - groupStart));
                groupStart = i < times.size() ? times.get(i) : groupStart;
            }
        }
        assertTrue(groupSpansUs.size() <= 2 && groupSpansUs.stream().allMatch(us -> us < 3_000),
                "timers due 1-15 ms ahead ran in groups spanning (us) " + groupSpansUs);
    }

    private static SIPStackTimerTask task(Runnable body) {
        return new SIPStackTimerTask() {
            @Override
            public void runTask() {
                body.run();
            }

            @Override
            public Object getThreadHash() {
                return null;
            }
        };
    }
}
