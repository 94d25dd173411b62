package io.trunkgate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The breaker's timing, with the reply standing in for Redis's: the Redis-backed paths are tested in the gateway. */
class RedisBreakerTest {

    private static final Duration TIMEOUT = Duration.ofMillis(50);

    private final ScheduledExecutorService timeouts = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService results = Executors.newFixedThreadPool(2);
    private final RedisBreaker breaker = new RedisBreaker(TIMEOUT, Duration.ofMillis(250), timeouts, results,
            Runnable::run);

    @AfterEach
    void stop() {
        timeouts.shutdownNow();
        results.shutdownNow();
    }

    @Test
    void aSilentRedisTimesOutAtTheTimeout() throws Exception {
        long start = System.nanoTime();
        CompletableFuture<String> result = breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new)
                .toCompletableFuture();
        ExecutionException failure = waitForFailure(result);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertEquals("redis did not answer within 50ms", failure.getCause().getMessage());
        assertInstanceOf(TimeoutException.class, failure.getCause().getCause());
        assertTrue(tookMs >= 50 && tookMs < 1_000, "timed out after " + tookMs + " ms");
    }

    @Test
    void aReplyReadRightAfterAStallOfThisProcessIsUsed() throws Exception {
        // The thread that checks deadlines is held for 150 ms, as a GC pause holds every thread; when the pause
        // ends, the overdue check runs at once and the thread that reads Redis's reply gets to it 2 ms later.
        CompletableFuture<String> reply = new CompletableFuture<>();
        CountDownLatch stalled = new CountDownLatch(1);
        timeouts.execute(() -> {
            stalled.countDown();
            sleep(150);
            new Thread(() -> {
                sleep(2);
                reply.complete("admitted");
            }).start();
        });
        stalled.await();
        CompletableFuture<String> result = breaker.call(() -> reply, IllegalStateException::new).toCompletableFuture();
        assertEquals("admitted", result.get(2, TimeUnit.SECONDS));
        assertEquals("CLOSED", breaker.state());
    }

    @Test
    void aStalledCheckStillTimesOutARedisThatNeverAnswers() throws Exception {
        CountDownLatch stalled = new CountDownLatch(1);
        timeouts.execute(() -> {
            stalled.countDown();
            sleep(150);
        });
        stalled.await();
        long start = System.nanoTime();
        CompletableFuture<String> result = breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new)
                .toCompletableFuture();
        waitForFailure(result);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 150 && tookMs < 1_000, "timed out after " + tookMs + " ms: the stall plus a short grace");
    }

    @Test
    void aClientThatThrowsAtOnceAnswersUnavailable() throws Exception {
        ExecutionException failure = waitForFailure(breaker.<String>call(() -> {
            throw new IllegalArgumentException("client shut down");
        }, IllegalStateException::new).toCompletableFuture());
        assertInstanceOf(IllegalStateException.class, failure.getCause());
        assertEquals("client shut down", failure.getCause().getMessage());
    }

    /**
     * A reply 10 ms past the budget, while Redis has been answering: used (a cold path of our own, not a dead
     * Redis). The reply is completed on the thread that checks deadlines, so it comes after the budget's check
     * and before the next, whatever the machine's load.
     */
    @Test
    void oneLateReplyWhileRedisIsHealthyIsWaitedFor() throws Exception {
        CompletableFuture<String> reply = new CompletableFuture<>();
        CompletableFuture<String> result = breaker.call(() -> reply, IllegalStateException::new).toCompletableFuture();
        timeouts.schedule(() -> reply.complete("admitted"), TIMEOUT.toMillis() + 10, TimeUnit.MILLISECONDS);
        assertEquals("admitted", result.get(2, TimeUnit.SECONDS));
        assertEquals("CLOSED", breaker.state());
    }

    /**
     * The thread that reads Redis's replies was starved past the budget while the reply sat in its socket: asked
     * to read what has arrived before the call fails, it finds the reply, which is used.
     */
    @Test
    void aReplyThatArrivedButWasNotReadWhenTheBudgetRanOutIsUsed() throws Exception {
        CompletableFuture<String> reply = new CompletableFuture<>();
        List<String> asked = new ArrayList<>();
        RedisBreaker starved = new RedisBreaker(TIMEOUT, Duration.ofMillis(250), timeouts, results, check -> {
            asked.add("read pending replies");
            reply.complete("admitted");
            check.run();
        });
        CompletableFuture<String> result = starved.call(() -> reply, IllegalStateException::new).toCompletableFuture();
        assertEquals("admitted", result.get(2, TimeUnit.SECONDS));
        assertEquals(List.of("read pending replies"), asked);
        assertEquals("CLOSED", starved.state());
    }

    /**
     * After a failure the extra budget of a healthy Redis is gone; a call whose reply comes six budgets (300 ms) late
     * is still waited for while Redis answers a call sent after it (the gateway's own backlog, not a dead Redis).
     */
    @Test
    void aLateReplyIsWaitedForWhileRedisAnswersCallsSentAfterIt() throws Exception {
        waitForFailure(breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new).toCompletableFuture());
        CompletableFuture<String> reply = new CompletableFuture<>();
        CompletableFuture<String> result = breaker.call(() -> reply, IllegalStateException::new).toCompletableFuture();
        answerAnotherCallAfter(10);
        timeouts.schedule(() -> reply.complete("admitted"), 6 * TIMEOUT.toMillis() + 10, TimeUnit.MILLISECONDS);
        assertEquals("admitted", result.get(2, TimeUnit.SECONDS));
    }

    @Test
    void whileRedisAnswersOthersACallStillFailsAfterHalfASecond() throws Exception {
        waitForFailure(breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new).toCompletableFuture());
        long start = System.nanoTime();
        CompletableFuture<String> result = breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new)
                .toCompletableFuture();
        answerAnotherCallAfter(10);
        waitForFailure(result);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        // four budgets are 200 ms here: the longer of that and half a second
        assertTrue(tookMs >= 500 && tookMs < 2_500, "failed after " + tookMs + " ms");
    }

    /**
     * Calls that fail their wait while Redis answers calls sent after them say the gateway is behind: they fail with
     * a {@link GatewayBehindException} and, however many, never open the circuit; a silent Redis still does.
     */
    @Test
    void callsLateWhileRedisAnswersLaterCallsDoNotOpenTheCircuit() throws Exception {
        waitForFailure(breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new).toCompletableFuture());
        for (int i = 0; i < 5; i++) {
            CompletableFuture<String> result = breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new)
                    .toCompletableFuture();
            answerAnotherCallAfter(10);
            ExecutionException failure = waitForFailure(result);
            assertInstanceOf(GatewayBehindException.class, failure.getCause().getCause(), failure.toString());
            assertEquals("CLOSED", breaker.state(), "after " + (i + 1) + " late calls");
        }
        for (int i = 0; i < 5 && !breaker.state().equals("OPEN"); i++) {
            ExecutionException failure = waitForFailure(
                    breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new).toCompletableFuture());
            assertInstanceOf(TimeoutException.class, failure.getCause().getCause());
        }
        assertEquals("OPEN", breaker.state(), "a silent Redis opens the circuit");
    }

    /** Another call, sent {@code delayMs} from now on the thread that checks deadlines, answered at once. */
    private void answerAnotherCallAfter(long delayMs) throws Exception {
        CompletableFuture<String> other = new CompletableFuture<>();
        timeouts.schedule(() -> breaker.call(() -> CompletableFuture.completedFuture("other"),
                IllegalStateException::new).whenComplete((value, error) -> other.complete(value)),
                delayMs, TimeUnit.MILLISECONDS);
        assertEquals("other", other.get(2, TimeUnit.SECONDS));
    }

    /** Each timer the breaker sets wakes its thread; replies that come at once need one check per budget at most. */
    @Test
    void callsAnsweredAtOnceShareOneDeadlineCheck() throws Exception {
        ScheduledThreadPoolExecutor checks = new ScheduledThreadPoolExecutor(1);
        try {
            RedisBreaker counted = new RedisBreaker(TIMEOUT, Duration.ofMillis(250), checks, results, Runnable::run);
            long started = System.nanoTime();
            for (int i = 0; i < 100; i++) {
                assertEquals("admitted", counted.call(() -> CompletableFuture.completedFuture("admitted"),
                        IllegalStateException::new).toCompletableFuture().get(2, TimeUnit.SECONDS));
            }
            // one check per budget the calls took (a busy machine may take several), and the one set after them
            long budgets = (System.nanoTime() - started) / TIMEOUT.toNanos() + 1;
            assertTrue(checks.getTaskCount() <= budgets + 1, "deadline checks scheduled for 100 calls over " + budgets
                    + " budgets: " + checks.getTaskCount());
            CompletableFuture<String> silent = counted.call(RedisBreakerTest::silentRedis, IllegalStateException::new)
                    .toCompletableFuture();
            assertEquals("redis did not answer within 50ms", waitForFailure(silent).getCause().getMessage());
        } finally {
            checks.shutdownNow();
        }
    }

    @Test
    void repeatedTimeoutsOpenTheCircuitAndCallsFailFast() throws Exception {
        for (int i = 0; i < 3; i++) {
            waitForFailure(breaker.call(RedisBreakerTest::silentRedis, IllegalStateException::new).toCompletableFuture());
        }
        assertEquals("OPEN", breaker.state());
        ExecutionException failure = waitForFailure(
                breaker.call(() -> CompletableFuture.completedFuture("x"), IllegalStateException::new).toCompletableFuture());
        assertEquals("redis circuit open", failure.getCause().getMessage());
    }

    private static CompletableFuture<String> silentRedis() {
        return new CompletableFuture<>();
    }

    private static ExecutionException waitForFailure(CompletableFuture<?> result) throws Exception {
        try {
            result.get(2, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e;
        }
        throw new AssertionError("the call did not fail");
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
