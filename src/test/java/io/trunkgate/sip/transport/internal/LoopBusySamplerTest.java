package io.trunkgate.sip.transport.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.trunkgate.overload.LoopMeter;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.OverloadSettings;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A loop's busy time sampled from scheduler statistics, on the channel's manual clock. */
class LoopBusySamplerTest {

    private static final Duration PERIOD = Duration.ofMillis(100);

    @TempDir
    Path dir;

    private final AtomicLong nanos = new AtomicLong();
    private final EmbeddedChannel channel = new EmbeddedChannel();
    private final OverloadController overload = new OverloadController(
            () -> OverloadSettings.of(Duration.ofMillis(50), 1000, 0), nanos::get);
    private final LoopMeter meter = overload.loopMeter();

    LoopBusySamplerTest() {
        channel.freezeTime();
    }

    private void advance() {
        nanos.addAndGet(PERIOD.toNanos());
        channel.advanceTimeBy(PERIOD.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    @Test
    void theShareBusyIsTheTimeRunAndWaitingForACoreOverTheTimePassed() throws IOException {
        Path schedstat = dir.resolve("schedstat");
        Files.writeString(schedstat, "1000000 0 4\n");
        EventLoop loop = channel.eventLoop();
        new LoopBusySampler(loop, meter, nanos::get, schedstat).run();
        // over the next second: 300 ms ran, 200 ms ready and waiting for a core
        for (int i = 0; i < 10; i++) {
            Files.writeString(schedstat, (1_000_000 + (i + 1) * 30_000_000L) + " " + (i + 1) * 20_000_000L + " 9\n");
            advance();
        }
        assertEquals(0.5, meter.busyShare(), 1e-9);
        assertEquals(0.5, overload.busiestLoopShare(), 1e-9);
    }

    @Test
    void aLoopWhoseStatisticsCannotBeReadStopsSampling() throws IOException {
        Path schedstat = dir.resolve("none");
        new LoopBusySampler(channel.eventLoop(), meter, nanos::get, schedstat).run();
        Files.writeString(schedstat, "1 0 1\n");
        advance();
        advance();
        assertTrue(Double.isNaN(meter.busyShare()), "no sample taken: " + meter.busyShare());
    }

    @Test
    void theCallingThreadsStatisticsCountAtLeastTheTimeItRan() throws IOException {
        assumeTrue(Files.isReadable(LoopBusySampler.SCHEDSTAT), "Linux's scheduler statistics");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long busyBefore = LoopBusySampler.busyNanos(Files.readString(LoopBusySampler.SCHEDSTAT));
        long ranBefore = threads.getCurrentThreadCpuTime();
        long sum = 0;
        while (threads.getCurrentThreadCpuTime() - ranBefore < 50_000_000) {
            sum += Files.readString(LoopBusySampler.SCHEDSTAT).length();
        }
        long ran = threads.getCurrentThreadCpuTime() - ranBefore;
        long busy = LoopBusySampler.busyNanos(Files.readString(LoopBusySampler.SCHEDSTAT)) - busyBefore;
        assertTrue(sum > 0 && busy >= ran * 0.9, "busy " + busy + " ns, ran " + ran + " ns");
    }
}
