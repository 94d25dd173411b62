package io.trunkgate.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when the test says, with a scheduler on it (bucket4j's {@code TimeMeterMock}, plus the
 * timer): what the code under test schedules runs inside {@link #advance}, at its due time, on the test's thread.
 * Nano time and wall time (microseconds since the epoch, for the in-memory ledgers) move together.
 */
public final class ManualTime {

    /** 2026-01-01T00:00:00Z: any fixed start does; a round one keeps failure messages readable. */
    private static final long START_MICROS = 1_767_225_600_000_000L;

    private final AtomicLong nanos = new AtomicLong();
    private final PriorityQueue<Task<?>> due = new PriorityQueue<>();
    private final AtomicLong sequence = new AtomicLong();
    private final Scheduler scheduler = new Scheduler();

    public long nanoTime() {
        return nanos.get();
    }

    public long wallMicros() {
        return START_MICROS + nanos.get() / 1000;
    }

    /** Wall time as a {@link Clock} (for code that reads instants), moving with this time. */
    public Clock clock() {
        return new Clock() {
            @Override
            public Instant instant() {
                long micros = wallMicros();
                return Instant.ofEpochSecond(micros / 1_000_000, (micros % 1_000_000) * 1000);
            }

            @Override
            public ZoneId getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(ZoneId zone) {
                return this;
            }
        };
    }

    /** Moves the clock on by {@code step}, running every task that falls due on the way, each at its time. */
    public void advance(Duration step) {
        long until = nanos.get() + step.toNanos();
        while (true) {
            Task<?> next;
            synchronized (due) {
                next = due.peek();
                if (next == null || next.at > until) {
                    break;
                }
                due.poll();
            }
            nanos.accumulateAndGet(next.at, Math::max);
            next.run();
        }
        nanos.set(until);
    }

    /**
     * Moves the clock on by {@code step} and runs nothing: the process stood still (a long GC pause, no CPU, a
     * SIGSTOP). What fell due meanwhile runs late, at the next {@link #advance} or {@link #runDue}.
     */
    public void stall(Duration step) {
        nanos.addAndGet(step.toNanos());
    }

    /** Runs what is due now (a task scheduled with no delay). */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /** A scheduler whose tasks run in {@link #advance}; tasks submitted without delay wait for it too. */
    public ScheduledExecutorService scheduler() {
        return scheduler;
    }

    private <V> Task<V> enqueue(Callable<V> work, long delayNanos) {
        Task<V> task = new Task<>(work, nanos.get() + Math.max(0, delayNanos), sequence.incrementAndGet());
        synchronized (due) {
            due.add(task);
        }
        return task;
    }

    private final class Task<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long at;
        final long order;

        Task(Callable<V> work, long at, long order) {
            super(work);
            this.at = at;
            this.order = order;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(at - nanos.get(), TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Task<?> task = (Task<?>) other;
            return at != task.at ? Long.compare(at, task.at) : Long.compare(order, task.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            synchronized (due) {
                due.remove(this);
            }
            return super.cancel(mayInterruptIfRunning);
        }
    }

    private final class Scheduler extends AbstractExecutorService implements ScheduledExecutorService {

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return enqueue(Executors.callable(command), unit.toNanos(delay));
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            return enqueue(callable, unit.toNanos(delay));
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            throw new UnsupportedOperationException("no periodic tasks on manual time");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException("no periodic tasks on manual time");
        }

        @Override
        public void execute(Runnable command) {
            enqueue(Executors.callable(command), 0);
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return new ArrayList<>();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
