package io.trunkgate.redis;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps call decisions from hanging on a dead Redis: every guarded call has a hard timeout, and a circuit
 * breaker stops sending calls once most recent ones failed, letting a probe through every
 * {@code probeInterval} so decisions come from Redis again soon after it returns.
 *
 * <p>A timeout is judged on time this process could see. When the check runs well after its deadline (a GC
 * pause or a descheduled VM stopped the JVM), Redis's reply may be sitting unread in the socket, so the check
 * gives it one short grace before declaring Redis unavailable; otherwise every pause longer than the timeout
 * would turn into rejected calls and a tripped breaker while Redis was answering in microseconds.
 *
 * <p>One slow reply is not evidence that Redis is down: the first calls on a cold path of a JVM just started, on
 * a busy machine, can take longer than the budget while Redis answers in microseconds. So while
 * the breaker is closed and no call failed for {@code HEALTHY_AFTER}, a call past its budget gets one more
 * budget before it counts as unavailable. Once anything failed, calls fail at their budget.
 *
 * <p>Nor is a reply that arrived but was not yet read: on a machine short of CPU the thread that reads Redis's
 * replies can wait longer than the budget for a core while the reply sits in the socket, which would refuse
 * calls as "redis_unavailable" with Redis answering in microseconds. So before a call fails for its budget, the
 * threads that read the replies ({@code afterPendingReads}) are asked to read what has arrived first; the call
 * fails only if its reply is still missing then.
 *
 * <p>Nor is a late reply while Redis answers other calls: after a stall of the whole gateway (a long GC pause, a
 * VM descheduled for a second) the backlog of received calls makes every Redis call of the next few hundred
 * milliseconds late on our side, and failing them at their budget would make the next ones fail too, then open
 * the breaker, with Redis answering throughout (bench/sipp-stall.sh counts such refusals). So a call past its
 * budget waits on while some reply arrived after it was sent (Redis is up and reached), up to {@code MAX_BUDGETS}
 * budgets or {@code MIN_WAIT_WHILE_ANSWERED} in all, whichever is longer, which bounds the wait for a call whose own
 * node is gone in a cluster. The backlog after a stall grows with the call rate, so a fixed number of default
 * budgets (200 ms) is too short at high rates; half a second is SIP's T1, and a caller that has its 100 Trying
 * waits far longer for a final answer.
 *
 * <p>A call that fails its wait while Redis answered a call sent after it fails with a {@link GatewayBehindException}
 * and is not counted by the breaker: Redis is up, and this gateway is behind on its own work. Counting such calls
 * opened the breaker on a gateway short of CPU, and every call after them was decided by the Redis-down policy while
 * Redis answered in microseconds; they are overload, which shedding new calls answers.
 *
 * <p>Results are completed on the {@code results} pool given, never on Redisson's netty threads: what
 * follows a decision (forwarding the call, answering it) must not hold up the replies queued behind it.
 */
public final class RedisBreaker {

    private static final Logger log = LoggerFactory.getLogger(RedisBreaker.class);
    /** A check this late means the process itself was stalled. */
    private static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long GRACE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long HEALTHY_AFTER_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The longest a call waits for its reply while other replies arrive, in budgets, */
    private static final int MAX_BUDGETS = 4;
    /** or this, if longer. */
    private static final long MIN_WAIT_WHILE_ANSWERED_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** While Redis is down, one call in this interval probes whether it is back. */
    private static final Duration PROBE_INTERVAL = Duration.ofMillis(250);
    /** The breaker judges the calls of the last this many seconds, */
    private static final int WINDOW_SECONDS = 2;
    /** once there were at least this many, */
    private static final int MINIMUM_CALLS = 3;
    /** and opens when this percentage of them failed. */
    private static final float FAILURE_RATE_PERCENT = 50;

    private final Duration timeout;
    /** How long a late call waits on while Redis answers others: the longer of the two bounds above. */
    private final long waitWhileAnsweredNanos;
    private final ScheduledExecutorService timeouts;
    private final Executor results;
    private final Consumer<Runnable> afterPendingReads;
    private final CircuitBreaker breaker;
    private volatile long lastFailureNanos = System.nanoTime() - 2 * HEALTHY_AFTER_NANOS;
    private volatile long lastReplyNanos = System.nanoTime();
    /** When the most recently sent of the calls Redis answered was sent. */
    private final AtomicLong lastAnsweredSentNanos = new AtomicLong(System.nanoTime());
    /** The calls not yet past their deadline's check, oldest first (settled ones leave at the next check). */
    private final Queue<Call<?>> pending = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean checkScheduled = new AtomicBoolean();

    /**
     * @param timeouts          runs the deadline checks (one thread is enough: each check is short)
     * @param results           completes the results, so whatever follows a decision runs there
     * @param afterPendingReads runs a task once the threads reading Redis's replies have read what has arrived
     */
    public RedisBreaker(Duration timeout, Duration probeInterval, ScheduledExecutorService timeouts, Executor results,
                      Consumer<Runnable> afterPendingReads) {
        this.timeout = timeout;
        this.waitWhileAnsweredNanos = Math.max(MAX_BUDGETS * timeout.toNanos(), MIN_WAIT_WHILE_ANSWERED_NANOS);
        this.timeouts = timeouts;
        this.results = results;
        this.afterPendingReads = afterPendingReads;
        this.breaker = CircuitBreaker.of("redis", CircuitBreakerConfig.custom()
                .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.TIME_BASED)
                .slidingWindowSize(WINDOW_SECONDS)
                .minimumNumberOfCalls(MINIMUM_CALLS)
                .failureRateThreshold(FAILURE_RATE_PERCENT)
                .waitDurationInOpenState(probeInterval)
                .permittedNumberOfCallsInHalfOpenState(1)
                .automaticTransitionFromOpenToHalfOpenEnabled(false)
                .build());
        breaker.getEventPublisher().onStateTransition(event ->
                log.warn("redis circuit {}", event.getStateTransition()));
    }

    /** A probe every {@code PROBE_INTERVAL} while Redis is down; no check of replies not yet read. */
    public static RedisBreaker withTimeout(Duration timeout, ScheduledExecutorService timeouts, Executor results) {
        return withTimeout(timeout, timeouts, results, Runnable::run);
    }

    /** A probe every {@code PROBE_INTERVAL} while Redis is down. */
    public static RedisBreaker withTimeout(Duration timeout, ScheduledExecutorService timeouts, Executor results,
                                         Consumer<Runnable> afterPendingReads) {
        return new RedisBreaker(timeout, PROBE_INTERVAL, timeouts, results, afterPendingReads);
    }

    /**
     * Runs {@code call} under the timeout and the breaker. When the breaker is open, or the call fails or
     * times out, the result fails with {@code unavailable.apply(message, cause)}.
     */
    public <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call,
                                       BiFunction<String, Throwable, RuntimeException> unavailable) {
        return call(call, unavailable, late -> { });
    }

    /**
     * As {@link #call(Supplier, BiFunction)}; a reply that arrives after the call already failed (its timeout
     * passed) goes to {@code lateReply}, so the caller can undo what Redis did for a result it never used.
     */
    public <T> CompletionStage<T> call(Supplier<CompletionStage<T>> call,
                                       BiFunction<String, Throwable, RuntimeException> unavailable,
                                       Consumer<T> lateReply) {
        if (!breaker.tryAcquirePermission()) {
            return CompletableFuture.failedFuture(unavailable.apply("redis circuit open", null));
        }
        Call<T> guarded = new Call<>(System.nanoTime(), unavailable);
        pending.add(guarded);
        scheduleCheck();
        CompletionStage<T> reply;
        try {
            reply = call.get();
        } catch (RuntimeException e) {
            guarded.fail(e.getMessage(), e);
            return guarded.result;
        }
        reply.whenComplete((value, error) -> {
            if (error == null) {
                if (!guarded.succeed(value)) {
                    results.execute(() -> lateReply.accept(value));
                }
            } else {
                guarded.fail(error.getMessage(), error);
            }
        });
        return guarded.result;
    }

    /** Schedules the next deadline check, at the oldest pending call's deadline, unless one is scheduled. */
    private void scheduleCheck() {
        Call<?> oldest = pending.peek();
        if (oldest != null && checkScheduled.compareAndSet(false, true)) {
            long delay = oldest.start + timeout.toNanos() - System.nanoTime();
            timeouts.schedule(this::checkDeadlines, Math.max(0, delay), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Every call has the same budget, so the pending calls are in deadline order: settled ones leave, the ones past
     * their deadline are expired, and the next check is set for the oldest one left. One check per budget, however
     * many calls: a timer per call woke this thread for every Redis call the gateway made.
     */
    private void checkDeadlines() {
        long now = System.nanoTime();
        for (Call<?> oldest = pending.peek(); oldest != null; oldest = pending.peek()) {
            if (!oldest.isSettled() && now - oldest.start < timeout.toNanos()) {
                break;
            }
            pending.poll();
            expire(oldest, false, false);
        }
        checkScheduled.set(false);
        scheduleCheck();
    }

    private void expire(Call<?> call, boolean graceGiven, boolean readsChecked) {
        if (call.isSettled()) {
            return;
        }
        long overdue = System.nanoTime() - call.start - timeout.toNanos();
        if (!graceGiven && overdue > STALL_NANOS) {
            timeouts.schedule(() -> expire(call, true, readsChecked), GRACE_NANOS, TimeUnit.NANOSECONDS);
            return;
        }
        if (!graceGiven && believedHealthy()) {
            timeouts.schedule(() -> expire(call, true, readsChecked), timeout.toNanos(), TimeUnit.NANOSECONDS);
            return;
        }
        long waited = System.nanoTime() - call.start;
        if (lastReplyNanos - call.start > 0 && waited < waitWhileAnsweredNanos) {
            timeouts.schedule(() -> expire(call, true, readsChecked),
                    Math.min(timeout.toNanos(), waitWhileAnsweredNanos - waited), TimeUnit.NANOSECONDS);
            return;
        }
        if (!readsChecked) {
            afterPendingReads.accept(() -> expire(call, true, true));
            return;
        }
        if (lastAnsweredSentNanos.get() - call.start > 0) {
            call.behind(new GatewayBehindException("no reply read within " + TimeUnit.NANOSECONDS.toMillis(waited)
                    + "ms while redis answered calls sent after it: this gateway is behind"));
            return;
        }
        TimeoutException timedOut = new TimeoutException("redis did not answer within " + timeout.toMillis() + "ms");
        call.fail(timedOut.getMessage(), timedOut);
    }

    private boolean believedHealthy() {
        return breaker.getState() == CircuitBreaker.State.CLOSED
                && System.nanoTime() - lastFailureNanos > HEALTHY_AFTER_NANOS;
    }

    /** One guarded call: the first outcome (reply, error or timeout) is recorded by the breaker and returned. */
    private final class Call<T> {
        final long start;
        final BiFunction<String, Throwable, RuntimeException> unavailable;
        final CompletableFuture<T> result = new CompletableFuture<>();
        private final AtomicBoolean settled = new AtomicBoolean();

        Call(long start, BiFunction<String, Throwable, RuntimeException> unavailable) {
            this.start = start;
            this.unavailable = unavailable;
        }

        boolean isSettled() {
            return settled.get();
        }

        /** Returns false when the call had already failed or timed out, so the value went unused. */
        boolean succeed(T value) {
            lastReplyNanos = System.nanoTime();
            lastAnsweredSentNanos.accumulateAndGet(start, (latest, sent) -> sent - latest > 0 ? sent : latest);
            if (!settled.compareAndSet(false, true)) {
                return false;
            }
            breaker.onSuccess(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            results.execute(() -> result.complete(value));
            return true;
        }

        /** Fails the call without counting it against Redis (see {@link GatewayBehindException}). */
        void behind(GatewayBehindException cause) {
            if (settled.compareAndSet(false, true)) {
                breaker.releasePermission();
                RuntimeException failure = unavailable.apply(cause.getMessage(), cause);
                results.execute(() -> result.completeExceptionally(failure));
            }
        }

        void fail(String message, Throwable cause) {
            if (settled.compareAndSet(false, true)) {
                lastFailureNanos = System.nanoTime();
                breaker.onError(System.nanoTime() - start, TimeUnit.NANOSECONDS, cause);
                RuntimeException failure = unavailable.apply(message, cause);
                results.execute(() -> result.completeExceptionally(failure));
            }
        }
    }

    /** CLOSED (Redis in use), OPEN (failing fast) or HALF_OPEN (probing). */
    public String state() {
        return breaker.getState().name();
    }

    public boolean isAvailable() {
        return breaker.getState() == CircuitBreaker.State.CLOSED;
    }
}
