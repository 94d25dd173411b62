package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.ThreadAffinityExecutor;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PerCallSequencerTest {

    private static final int CALLS = 4;

    /**
     * The executor FramedTcpConnection hands its messages to: handed to it directly, tasks submitted back to back
     * run out of order (hundreds of 200,000), which relayed a 183 before its 180, or dropped it after the 200.
     */
    @Test
    void workOfOneCallRunsInTheOrderHandedOverOnJainSipsAffinityExecutor() throws Exception {
        ThreadAffinityExecutor workers = new ThreadAffinityExecutor(2);
        try {
            assertEachCallInOrder(new PerCallSequencer(workers), 200_000);
        } finally {
            workers.shutdown();
        }
    }

    @Test
    void workOfOneCallNeverOverlapsOnAPoolWithoutAffinity() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(4);
        try {
            PerCallSequencer sequencer = new PerCallSequencer(workers);
            AtomicInteger running = new AtomicInteger();
            AtomicInteger mostAtOnce = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(50_000);
            for (int i = 0; i < 50_000; i++) {
                sequencer.execute("one-call", () -> {
                    mostAtOnce.accumulateAndGet(running.incrementAndGet(), Math::max);
                    running.decrementAndGet();
                    done.countDown();
                });
            }
            assertTrue(done.await(60, TimeUnit.SECONDS), "all work ran");
            assertEquals(1, mostAtOnce.get());
        } finally {
            workers.shutdownNow();
        }
    }

    @Test
    void workThatFailsDoesNotHoldUpTheRestOfItsCall() throws Exception {
        ExecutorService workers = Executors.newSingleThreadExecutor();
        try {
            PerCallSequencer sequencer = new PerCallSequencer(workers);
            CountDownLatch next = new CountDownLatch(1);
            sequencer.execute("c1", () -> {
                throw new IllegalStateException("a message that breaks the proxy");
            });
            sequencer.execute("c1", next::countDown);
            assertTrue(next.await(60, TimeUnit.SECONDS), "the work behind the failure ran");
        } finally {
            workers.shutdownNow();
        }
    }

    private static void assertEachCallInOrder(PerCallSequencer sequencer, int tasks) throws InterruptedException {
        List<List<Integer>> seen = IntStream.range(0, CALLS)
                .mapToObj(call -> Collections.synchronizedList(new ArrayList<Integer>())).toList();
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            int call = i % CALLS;
            int sequence = i / CALLS;
            sequencer.execute("call-" + call, () -> {
                seen.get(call).add(sequence);
                done.countDown();
            });
        }
        assertTrue(done.await(60, TimeUnit.SECONDS), "all work ran");
        for (int call = 0; call < CALLS; call++) {
            List<Integer> order = seen.get(call);
            int outOfOrder = (int) IntStream.range(1, order.size()).filter(k -> order.get(k) < order.get(k - 1)).count();
            assertEquals(0, outOfOrder, "call-" + call + ": work run before work handed over ahead of it");
        }
    }
}
