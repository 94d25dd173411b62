package io.trunkgate.sip;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * What a call reads time from and runs on: a monotonic clock for the durations it measures, wall time for the
 * instants it records, the scheduler of its answer and ring timers, and where what it waited for (an admission
 * verdict, a carrier slot, a reroute) comes back to it. In the gateway the last two are the call's own event loop,
 * the one its Call-ID's messages are handled on, so a call sees one event at a time without a lock held across
 * threads.
 *
 * @param nanos  monotonic time in nanoseconds ({@link System#nanoTime})
 * @param wall   wall time for the call record's instants
 * @param timers where the call's timers run
 * @param events where the answers the call waited for are handed back to it
 */
public record CallTime(LongSupplier nanos, Clock wall, ScheduledExecutorService timers, Executor events) {

    /** Answers handled on the thread that completes them (a test's manual time). */
    public CallTime(LongSupplier nanos, Clock wall, ScheduledExecutorService timers) {
        this(nanos, wall, timers, Runnable::run);
    }

    /** The system's clocks, with the timers on {@code timers} and answers handled where they complete. */
    public static CallTime system(ScheduledExecutorService timers) {
        return new CallTime(System::nanoTime, Clock.systemUTC(), timers);
    }

    /**
     * The system's clocks on a call's event loop: its timers, and the answers it waited for, which run at once
     * when they complete on the loop itself.
     */
    public static CallTime onLoop(io.netty.util.concurrent.EventExecutor loop) {
        return new CallTime(System::nanoTime, Clock.systemUTC(), loop, task -> {
            if (loop.inEventLoop()) {
                task.run();
            } else {
                loop.execute(task);
            }
        });
    }

    long nanoTime() {
        return nanos.getAsLong();
    }

    Instant now() {
        return wall.instant();
    }
}
