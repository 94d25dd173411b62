package io.trunkgate.sip.transaction;

import io.netty.util.concurrent.EventExecutor;
import io.trunkgate.sip.transaction.internal.ExecutorScheduler;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * One event loop as the transaction layer uses it: the thread a call's transactions live on, their clock and their
 * timers. In production a Netty {@link EventExecutor} ({@link #of}); in tests a manual clock.
 */
public interface Scheduler {

    /** Whether the calling thread is this loop's. */
    boolean inLoop();

    /** Runs {@code task} on the loop, later (never inline, even when called on the loop). */
    void execute(Runnable task);

    /** Runs {@code task} on the loop once {@code delayNanos} have passed. */
    Timer schedule(Runnable task, long delayNanos);

    /** The loop's clock, in nanoseconds, for {@link #schedule}'s delays. */
    long nanoTime();

    /** A scheduled task. */
    interface Timer {
        /** The task does not run, if it has not yet. */
        void cancel();
    }

    /** A Netty event loop as a scheduler. */
    static Scheduler of(EventExecutor loop) {
        return new ExecutorScheduler(loop);
    }

    /**
     * Which scheduler a Call-ID's transactions live on, for a function that names its Netty event loop (the
     * transports' {@code loopFor}): one scheduler per loop, made once.
     */
    static Function<String, Scheduler> perLoop(Function<String, ? extends EventExecutor> loopFor) {
        Map<EventExecutor, Scheduler> schedulers = new ConcurrentHashMap<>();
        return callId -> schedulers.computeIfAbsent(loopFor.apply(callId), Scheduler::of);
    }
}
