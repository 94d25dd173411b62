package io.trunkgate.sip.transaction;

import io.trunkgate.testing.ManualTime;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A call loop on manual time: the test's thread is the loop's, and what the layer schedules runs inside
 * {@link #advance}, each task at its due time. It counts the timers pending, to show a transaction keeps one.
 */
final class ManualLoop implements Scheduler {

    private final ManualTime time = new ManualTime();
    private final Thread owner = Thread.currentThread();
    private final AtomicInteger pendingTimers = new AtomicInteger();

    @Override
    public boolean inLoop() {
        return Thread.currentThread() == owner;
    }

    @Override
    public void execute(Runnable task) {
        time.scheduler().execute(task);
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
        AtomicBoolean done = new AtomicBoolean();
        pendingTimers.incrementAndGet();
        ScheduledFuture<?> future = time.scheduler().schedule(() -> {
            if (done.compareAndSet(false, true)) {
                pendingTimers.decrementAndGet();
                task.run();
            }
        }, delayNanos, TimeUnit.NANOSECONDS);
        return () -> {
            if (done.compareAndSet(false, true)) {
                pendingTimers.decrementAndGet();
                future.cancel(false);
            }
        };
    }

    @Override
    public long nanoTime() {
        return time.nanoTime();
    }

    /** Milliseconds since the start. */
    long millis() {
        return TimeUnit.NANOSECONDS.toMillis(time.nanoTime());
    }

    void advance(Duration step) {
        time.advance(step);
    }

    void advanceMillis(long millis) {
        time.advance(Duration.ofMillis(millis));
    }

    /** Moves on to {@code millis} since the start. */
    void advanceToMillis(long millis) {
        time.advance(Duration.ofNanos(TimeUnit.MILLISECONDS.toNanos(millis) - time.nanoTime()));
    }

    /** The loop stands still for {@code millis} (busy, or the process paused): what fell due runs late. */
    void stall(long millis) {
        time.stall(Duration.ofMillis(millis));
    }

    /** Runs what was handed to the loop and is due now. */
    void runPending() {
        time.runDue();
    }

    /** Timers scheduled and neither run nor cancelled. */
    int pendingTimers() {
        return pendingTimers.get();
    }
}
