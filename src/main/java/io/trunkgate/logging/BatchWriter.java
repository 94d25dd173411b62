package io.trunkgate.logging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Items offered by any thread, written by one thread a batch at a time, in the order offered. The first item
 * after a batch schedules the next one {@code linger} later; items offered meanwhile join it. So a thread that
 * offers never waits for a write nor wakes the writer itself (but once a batch), and the writer makes one write
 * per batch: at 1,000 items a second and a linger of 100 ms, 10 wake-ups and writes instead of 1,000 of each.
 * What is offered goes out at most about {@code linger} later; {@link #flushThen} and {@link #close} write
 * everything offered before them at once.
 */
public final class BatchWriter<T> implements AutoCloseable {

    private final Queue<T> queue = new ConcurrentLinkedQueue<>();
    /** Items queued, for the capacity: the queue does not count itself cheaply. */
    private final AtomicInteger queued = new AtomicInteger();
    /** Whether a batch is scheduled that will take what is queued now. */
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final ScheduledExecutorService writer;
    private final long lingerNanos;
    private final int capacity;
    private final Consumer<List<T>> write;
    private volatile boolean closed;

    /**
     * @param writer   the one thread batches are written on
     * @param linger   how long a batch waits after its first item for others
     * @param capacity items that may wait at most (beyond: {@link #offer} refuses them), 0 for no bound
     * @param write    writes a batch, on {@code writer}
     */
    public BatchWriter(ScheduledExecutorService writer, Duration linger, int capacity, Consumer<List<T>> write) {
        this.writer = writer;
        this.lingerNanos = linger.toNanos();
        this.capacity = capacity;
        this.write = write;
    }

    /** Queues {@code item} for the next batch; false (and nothing queued) when full or closed. */
    public boolean offer(T item) {
        if (closed) {
            return false;
        }
        if (capacity > 0 && queued.incrementAndGet() > capacity) {
            queued.decrementAndGet();
            return false;
        }
        queue.add(item);
        if (scheduled.compareAndSet(false, true)) {
            try {
                writer.schedule(this::writeQueued, lingerNanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException stopped) {
                // the writer thread is gone (the JVM is stopping): nothing will take it
                scheduled.set(false);
                return false;
            }
        }
        return true;
    }

    /**
     * Writes everything offered before this call, then runs {@code action} on the writer thread before any item
     * offered later is written, and returns when it has run (what a reopened file needs).
     */
    public void flushThen(Runnable action) {
        Future<?> done = writer.submit(() -> {
            writeQueued();
            action.run();
        });
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("writing a batch failed", e.getCause());
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Writes everything offered so far; anything offered from now on is refused. */
    @Override
    public void close() {
        closed = true;
        flushThen(() -> { });
    }

    private void writeQueued() {
        // first: an item offered from now on schedules a batch of its own, or is taken by this one
        scheduled.set(false);
        List<T> batch = new ArrayList<>();
        for (T item = queue.poll(); item != null; item = queue.poll()) {
            batch.add(item);
        }
        if (batch.isEmpty()) {
            return;
        }
        if (capacity > 0) {
            queued.addAndGet(-batch.size());
        }
        write.accept(batch);
    }
}
