package io.trunkgate.sip;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.LongSupplier;

/**
 * What a call reads time from and runs its timers on: a monotonic clock for the durations it measures, wall
 * time for the instants it records, and the scheduler of its answer and ring timers.
 *
 * @param nanos  monotonic time in nanoseconds ({@link System#nanoTime})
 * @param wall   wall time for the call record's instants
 * @param timers where the call's timers run
 */
public record CallTime(LongSupplier nanos, Clock wall, ScheduledExecutorService timers) {

    /** The system's clocks, with the timers on {@code timers}. */
    public static CallTime system(ScheduledExecutorService timers) {
        return new CallTime(System::nanoTime, Clock.systemUTC(), timers);
    }

    long nanoTime() {
        return nanos.getAsLong();
    }

    Instant now() {
        return wall.instant();
    }
}
