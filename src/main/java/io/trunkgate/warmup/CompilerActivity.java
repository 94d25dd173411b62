package io.trunkgate.warmup;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether the JIT compiler is still busy, from the time it spent compiling over the last full second. The warm-up
 * calls cross the compile thresholds of the call path's methods, but the C2 compiler works through its queue
 * behind them, and it raises those thresholds while its queue is long: a warm-up that ends with its calls leaves
 * much of the call path to be compiled in the first seconds of real traffic (docs/warm-up.md).
 */
final class CompilerActivity {

    /** Busy while compiling took more than this share of the last second. */
    static final double BUSY_SHARE = 0.10;
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier compileMillis;
    private final LongSupplier nanoClock;
    private long windowStartNanos;
    private long windowStartCompileMillis;
    private double lastShare = Double.NaN;

    /**
     * @param compileMillis the compiler's total time so far, in milliseconds (summed over its threads)
     */
    CompilerActivity(LongSupplier compileMillis, LongSupplier nanoClock) {
        this.compileMillis = compileMillis;
        this.nanoClock = nanoClock;
        this.windowStartNanos = nanoClock.getAsLong();
        this.windowStartCompileMillis = compileMillis.getAsLong();
    }

    /** This JVM's compiler; always quiet where the JVM does not report compile time. */
    static CompilerActivity ofThisJvm() {
        CompilationMXBean bean = ManagementFactory.getCompilationMXBean();
        if (bean == null || !bean.isCompilationTimeMonitoringSupported()) {
            return new CompilerActivity(() -> 0, System::nanoTime);
        }
        return new CompilerActivity(bean::getTotalCompilationTime, System::nanoTime);
    }

    /** True until a full second has passed, then whether compiling took more than {@link #BUSY_SHARE} of it. */
    synchronized boolean busy() {
        long now = nanoClock.getAsLong();
        if (now - windowStartNanos >= WINDOW_NANOS) {
            long compiled = compileMillis.getAsLong();
            lastShare = (compiled - windowStartCompileMillis) / (double) TimeUnit.NANOSECONDS.toMillis(now - windowStartNanos);
            windowStartNanos = now;
            windowStartCompileMillis = compiled;
        }
        return Double.isNaN(lastShare) || lastShare > BUSY_SHARE;
    }

    /** The share of the last full second spent compiling (NaN before the first). */
    synchronized double lastShare() {
        return lastShare;
    }
}
