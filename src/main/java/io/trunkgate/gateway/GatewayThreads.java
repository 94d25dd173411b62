package io.trunkgate.gateway;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every thread of the gateway but the SIP loops ({@code sip.transport.SipTransports} owns those): each pool is created, sized and named here, handed to
 * the part that uses it, and stopped by {@link #close()}, after those parts are closed. All are daemon threads.
 * docs/ARCHITECTURE.md says which step of a call runs on which.
 */
public final class GatewayThreads implements AutoCloseable {

    private static final int CORES = Runtime.getRuntime().availableProcessors();
    /** Redis replies are completed here, never on Redisson's Netty threads (see RedisBreaker). */
    private static final int REDIS_RESULT_THREADS = Math.max(2, CORES);
    /**
     * Redisson's reads and writes: one event loop per core, at least 2 (Redisson's default is 32 threads, a few of
     * which ever work, whatever the machine).
     */
    private static final int REDIS_IO_THREADS = Math.max(2, CORES);

    private final ScheduledExecutorService sipTimers = scheduled("sip-timers");
    private final ScheduledExecutorService pacerTimer = scheduled("pacer-timer");
    private final ScheduledExecutorService redisTimeouts = scheduled("redis-timeouts");
    private final ExecutorService redisResults = Executors.newFixedThreadPool(REDIS_RESULT_THREADS,
            daemon("redis-results"));
    private final ScheduledExecutorService configReload = scheduled("config-reload");
    /** Writes the call records, a batch at a time. */
    private final ScheduledExecutorService callRecords = scheduled("call-records");
    /** Threads start on first use: none unless routing.reroute-url is set. */
    private final ExecutorService rerouteHttp = Executors.newFixedThreadPool(1, daemon("reroute-http"));
    /** Host names the gateway sends to (a Contact, a Route) looked up off the SIP loops; started on first use. */
    private final ExecutorService sipResolve = Executors.newFixedThreadPool(2, daemon("sip-resolve"));
    /** Threads start on first use: none unless a reroute hook class is configured. */
    private final ExecutorService rerouteHook = Executors.newFixedThreadPool(1, daemon("reroute-hook"));
    /** Threads start on first use: none unless capture.address is set. */
    private final ExecutorService sipCapture = Executors.newFixedThreadPool(1, daemon("sip-capture"));
    private final EventLoopGroup adminHttp = new NioEventLoopGroup(1, new DefaultThreadFactory("admin-http", true));
    private final EventLoopGroup redisIo = new NioEventLoopGroup(REDIS_IO_THREADS,
            new DefaultThreadFactory("redis-io", true));

    /** The drain's timers, the dialog sweep, carrier probes and the traffic history's samples. */
    public ScheduledExecutorService sipTimers() {
        return sipTimers;
    }

    /** Releases held calls at their carrier slot, in order (one thread: see TimerCarrierPacer). */
    public ScheduledExecutorService pacerTimer() {
        return pacerTimer;
    }

    /** The timeout checks of every Redis call. */
    public ScheduledExecutorService redisTimeouts() {
        return redisTimeouts;
    }

    /** Where Redis results (and their failures) are completed, so what follows a decision runs here. */
    public ExecutorService redisResults() {
        return redisResults;
    }

    /** Where call records are turned into JSON and written (CallRecordWriter). */
    public ScheduledExecutorService callRecords() {
        return callRecords;
    }

    /** Polls the configuration files and runs reloads, one at a time. */
    public ScheduledExecutorService configReload() {
        return configReload;
    }

    /**
     * The HTTP reroute hook's client: its work, and what follows its answer (or its timeout, timed on
     * {@link #sipTimers()}), so a rerouted call goes on here.
     */
    public ExecutorService rerouteHttp() {
        return rerouteHttp;
    }

    /** Where a host name a SIP message goes to is looked up: a blocking lookup, never on a SIP loop. */
    public ExecutorService sipResolve() {
        return sipResolve;
    }

    /** Where a reroute hook class of the operator's runs: never on a SIP loop. */
    public ExecutorService rerouteHook() {
        return rerouteHook;
    }

    /** SIP capture's sender, for as long as it runs. */
    public ExecutorService sipCapture() {
        return sipCapture;
    }

    /** Where the Redis client reads and writes. */
    public EventLoopGroup redisIo() {
        return redisIo;
    }

    /**
     * Runs {@code task} once every Redis I/O thread has read what had arrived when this was called, and the replies
     * to what it had still to write then (RedisBreaker asks this before it gives up on a reply). A task scheduled a
     * millisecond ahead runs only after its loop has polled its sockets and read them; but a loop starved of CPU
     * runs the writes queued for it and its due scheduled tasks in one go, before it polls again, so a first pass
     * only sees the commands written, and a second one, a millisecond later, their replies.
     */
    public void afterPendingRedisReads(Runnable task) {
        List<EventExecutor> loops = new ArrayList<>();
        redisIo.forEach(loops::add);
        AtomicInteger left = new AtomicInteger(loops.size());
        for (EventExecutor loop : loops) {
            loop.schedule(() -> loop.schedule(() -> {
                if (left.decrementAndGet() == 0) {
                    task.run();
                }
            }, 1, TimeUnit.MILLISECONDS), 1, TimeUnit.MILLISECONDS);
        }
    }

    /** The admin HTTP server's event loop. */
    public EventLoopGroup adminHttp() {
        return adminHttp;
    }

    /** Stops every pool at once; work still queued is dropped (the parts were closed before). */
    @Override
    public void close() {
        configReload.shutdownNow();
        callRecords.shutdownNow();
        sipTimers.shutdownNow();
        pacerTimer.shutdownNow();
        redisTimeouts.shutdownNow();
        redisResults.shutdownNow();
        rerouteHttp.shutdownNow();
        rerouteHook.shutdownNow();
        sipResolve.shutdownNow();
        sipCapture.shutdownNow();
        adminHttp.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        redisIo.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** One thread; cancelled tasks leave its queue at once (timers are mostly cancelled, not run). */
    private static ScheduledExecutorService scheduled(String name) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> daemon(runnable, name));
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }

    /** Threads named {@code name-1}, {@code name-2}, ... */
    private static ThreadFactory daemon(String name) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> daemon(runnable, name + "-" + count.incrementAndGet());
    }

    private static Thread daemon(Runnable runnable, String name) {
        Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
