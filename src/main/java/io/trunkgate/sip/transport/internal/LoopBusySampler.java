package io.trunkgate.sip.transport.internal;

import io.netty.channel.EventLoop;
import io.trunkgate.overload.LoopMeter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples how long one SIP loop has been busy, on the loop itself, into its {@link LoopMeter}: from Linux's
 * scheduler statistics of the calling thread ({@code /proc/thread-self/schedstat}: the time it ran, and the time it
 * was ready and waited for a core), so a loop that a busy host keeps off its core counts as busy, and a loop asleep
 * in its selector as idle. Where the file cannot be read the loop stops sampling, and overload control goes
 * without the signal (docs/overload.md).
 */
public final class LoopBusySampler implements Runnable {

    private static final Logger log = LoggerFactory.getLogger("io.trunkgate.overload");
    static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");
    private static final AtomicBoolean told = new AtomicBoolean();

    private final EventLoop loop;
    private final LoopMeter meter;
    private final LongSupplier nanoClock;
    private final Path schedstat;

    LoopBusySampler(EventLoop loop, LoopMeter meter, LongSupplier nanoClock, Path schedstat) {
        this.loop = loop;
        this.meter = meter;
        this.nanoClock = nanoClock;
        this.schedstat = schedstat;
    }

    /** Samples {@code loop} into {@code meter} every {@link LoopMeter#period()} from now on, on the loop. */
    public static void start(EventLoop loop, LoopMeter meter) {
        loop.execute(new LoopBusySampler(loop, meter, System::nanoTime, SCHEDSTAT));
    }

    @Override
    public void run() {
        long busy;
        try {
            busy = busyNanos(Files.readString(schedstat, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException e) {
            if (told.compareAndSet(false, true)) {
                log.info("the SIP loops' busy time is not readable ({}): after an overload, the limit on new calls grows "
                        + "by the wait alone", e.toString());
            }
            return;
        }
        meter.sample(busy, nanoClock.getAsLong());
        try {
            loop.schedule(this, meter.period().toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopped) {
            // the loops are closing
        }
    }

    /** From a schedstat line ({@code <ran ns> <waited for a core ns> <time slices>}): ran plus waited. */
    static long busyNanos(String schedstat) {
        String[] fields = schedstat.trim().split(" ");
        return Long.parseLong(fields[0]) + Long.parseLong(fields[1]);
    }
}
