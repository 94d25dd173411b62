package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
