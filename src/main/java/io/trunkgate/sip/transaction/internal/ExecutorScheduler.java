package io.trunkgate.sip.transaction.internal;

import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.trunkgate.sip.transaction.Scheduler;
import java.util.concurrent.TimeUnit;

/** A Netty event loop as the transaction layer's {@link Scheduler}. */
public final class ExecutorScheduler implements Scheduler {

    private final EventExecutor loop;

    public ExecutorScheduler(EventExecutor loop) {
        this.loop = loop;
    }

    @Override
    public boolean inLoop() {
        return loop.inEventLoop();
    }

    @Override
    public void execute(Runnable task) {
        loop.execute(task);
    }

    @Override
    public Timer schedule(Runnable task, long delayNanos) {
        ScheduledFuture<?> future = loop.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        return () -> future.cancel(false);
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }
}
