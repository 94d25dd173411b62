package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GatewayThreadsTest {

    /** A Redis reader that cannot run (starved of CPU, here held by a task) holds the decision until it has run. */
    @Test
    void aTaskAfterPendingRedisReadsWaitsForEveryRedisIoThread() throws Exception {
        try (GatewayThreads threads = new GatewayThreads()) {
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            threads.redisIo().next().execute(() -> {
                holding.countDown();
                awaitQuietly(held);
            });
            holding.await();
            AtomicInteger runs = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            threads.afterPendingRedisReads(() -> {
                runs.incrementAndGet();
                done.countDown();
            });
            assertFalse(done.await(200, TimeUnit.MILLISECONDS), "ran while a reader was held");
            held.countDown();
            assertTrue(done.await(10, TimeUnit.SECONDS));
            assertEquals(1, runs.get());
        }
    }

    /**
     * A loop starved of CPU gets to a command queued long ago and to the breaker's check in one go: the check must
     * still see the reply that command's write brings (here the write queues the reply's read on the loop, as the
     * loop's next poll would read it), not give up on it right after the write.
     */
    @Test
    void aTaskAfterPendingRedisReadsSeesTheReplyToAWriteTheLoopRanJustBefore() throws Exception {
        try (GatewayThreads threads = new GatewayThreads()) {
            EventLoop loop = threads.redisIo().next();
            CountDownLatch held = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            loop.execute(() -> {
                holding.countDown();
                awaitQuietly(held);
            });
            holding.await();
            AtomicBoolean replyRead = new AtomicBoolean();
            loop.execute(() -> loop.execute(() -> replyRead.set(true)));
            CompletableFuture<Boolean> seenByCheck = new CompletableFuture<>();
            threads.afterPendingRedisReads(() -> seenByCheck.complete(replyRead.get()));
            long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
            while (System.nanoTime() < due) {
                Thread.onSpinWait(); // the check's first pass is due by the time the loop runs again
            }
            held.countDown();
            assertTrue(seenByCheck.get(10, TimeUnit.SECONDS), "the check ran before the reply was read");
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
