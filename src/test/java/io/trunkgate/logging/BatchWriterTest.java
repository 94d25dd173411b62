package io.trunkgate.logging;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Items reach the writer in the order offered, those offered while it writes a batch together in the next one, every
 * one exactly once, and all of them by the time {@link BatchWriter#close} returns.
 */
class BatchWriterTest {

    private final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1);
    private final List<List<String>> batches = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void stop() {
        thread.shutdownNow();
    }

    @Test
    void whatIsOfferedWhileABatchIsWrittenGoesTogetherInTheNextInOrder() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        BatchWriter<String> writer = new BatchWriter<>(thread, Duration.ZERO, 0, batch -> {
            batches.add(batch);
            writing.countDown();
            await(release);
        });
        assertTrue(writer.offer("1"));
        assertTrue(writing.await(30, TimeUnit.SECONDS), "the first batch was not written");
        for (int i = 2; i <= 6; i++) {
            assertTrue(writer.offer(Integer.toString(i)));
        }
        release.countDown();
        writer.close();
        assertEquals(List.of(List.of("1"), List.of("2", "3", "4", "5", "6")), batches);
    }

    @Test
    void everyItemOfManyThreadsIsWrittenOnceByTheTimeItIsClosed() throws Exception {
        BatchWriter<String> writer = new BatchWriter<>(thread, Duration.ofMillis(100), 0, batches::add);
        List<Thread> offering = IntStream.range(0, 4).mapToObj(t -> new Thread(() -> {
            for (int i = 0; i < 5_000; i++) {
                writer.offer(t + ":" + i);
            }
        })).toList();
        offering.forEach(Thread::start);
        for (Thread t : offering) {
            t.join();
        }
        writer.close();
        List<String> written = batches.stream().flatMap(List::stream).toList();
        assertEquals(20_000, written.size());
        assertEquals(20_000, written.stream().distinct().count());
        for (int t = 0; t < 4; t++) {
            String prefix = t + ":";
            assertEquals(IntStream.range(0, 5_000).mapToObj(i -> prefix + i).toList(),
                    written.stream().filter(item -> item.startsWith(prefix)).toList(), "one thread's order");
        }
        assertFalse(writer.offer("late"), "offered after close");
    }

    @Test
    void flushThenRunsAfterWhatCameBeforeAndBeforeWhatComesAfter() {
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        BatchWriter<String> writer = new BatchWriter<>(thread, Duration.ofSeconds(30), 0, seen::addAll);
        writer.offer("a");
        writer.offer("b");
        writer.flushThen(() -> seen.add("reopened"));
        assertEquals(List.of("a", "b", "reopened"), seen, "flushThen returns once its action ran");
        writer.offer("c");
        writer.close();
        assertEquals(List.of("a", "b", "reopened", "c"), seen);
    }

    @Test
    void beyondItsCapacityItRefusesRatherThanWaits() throws Exception {
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        BatchWriter<String> writer = new BatchWriter<>(thread, Duration.ZERO, 2, batch -> {
            batches.add(batch);
            writing.countDown();
            await(release);
        });
        writer.offer("1");
        assertTrue(writing.await(30, TimeUnit.SECONDS), "the first batch was not written");
        assertTrue(writer.offer("2"));
        assertTrue(writer.offer("3"));
        assertFalse(writer.offer("4"), "two wait already");
        release.countDown();
        writer.flushThen(() -> { });
        assertTrue(writer.offer("5"), "room again once written");
        writer.close();
        assertEquals(List.of(List.of("1"), List.of("2", "3"), List.of("5")), batches);
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(30, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
