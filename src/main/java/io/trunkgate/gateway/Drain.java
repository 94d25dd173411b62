package io.trunkgate.gateway;

import io.trunkgate.admin.Draining;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.sip.CallRegistry;
import io.trunkgate.sip.DialogTable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The graceful drain (SIGTERM and POST /api/drain): new INVITEs get 503, calls still being admitted or held get
 * 503 at once, calls at a carrier and established calls go on, their in-dialog requests relayed as usual, until
 * the last call has ended or {@code shutdown.drain-timeout} passed. An operator's drain (POST /api/drain) can be
 * ended by {@link #resume} (POST /api/resume); the drain of a stopping gateway cannot.
 */
final class Drain implements Draining {

    private static final Logger log = LoggerFactory.getLogger(Drain.class);
    private static final long CHECK_MS = 100;

    private final OverloadController overload;
    private final CallRegistry calls;
    private final DialogTable dialogs;
    private final ScheduledExecutorService timers;
    private final Supplier<Duration> timeout;
    /** Whether a drain runs; guarded by this, as {@link #drained} and {@link #stopping}. */
    private boolean started;
    /** Completes when the current drain is over (its calls ended or its timeout passed). */
    private CompletableFuture<Void> drained = new CompletableFuture<>();
    /** The gateway is stopping: its drain is never undone by {@link #resume}. */
    private boolean stopping;

    /** @param timeout the drain timeout of the configuration active when the drain starts */
    Drain(OverloadController overload, CallRegistry calls, DialogTable dialogs, ScheduledExecutorService timers,
          Supplier<Duration> timeout) {
        this.overload = overload;
        this.calls = calls;
        this.dialogs = dialogs;
        this.timers = timers;
        this.timeout = timeout;
    }

    /** Starts the drain (idempotent); completes when the last call has ended or the drain timeout passed. */
    synchronized CompletableFuture<Void> begin() {
        if (!started) {
            started = true;
            Duration limit = timeout.get();
            log.info("draining: new calls refused; {} calls in progress get up to {} ms to end", callsInProgress(),
                    limit.toMillis());
            overload.drain();
            calls.abortHeld();
            CompletableFuture<Void> over = drained;
            // An INVITE leaves the registry only after its answer has left: read first, every answer is out, and
            // no dialog after it means no call is left.
            CompletableFuture<Void> ended = once(() -> calls.allAnswered() && dialogs.live() == 0);
            ended.thenRun(() -> over.complete(null));
            ScheduledFuture<?> deadline = timers.schedule(() -> {
                if (over.complete(null)) {
                    log.info("drain timeout: {} calls still in progress are ended", callsInProgress());
                }
            }, limit.toMillis(), TimeUnit.MILLISECONDS);
            over.whenComplete((done, error) -> {
                ended.cancel(false);
                deadline.cancel(false);
            });
        }
        return drained;
    }

    /** The gateway stops (SIGTERM, SIGINT, close): drains, and no resume undoes it. */
    synchronized CompletableFuture<Void> stop() {
        stopping = true;
        return begin();
    }

    /** Ends the drain now (a second SIGTERM): the stop goes on without waiting for calls. */
    synchronized void end() {
        stop().complete(null);
    }

    @Override
    public void start() {
        begin();
    }

    /**
     * An operator's drain ends: new calls are taken again, and a later drain starts afresh (its own timeout). The
     * calls refused meanwhile stay refused. A stopping gateway's drain goes on.
     */
    @Override
    public synchronized boolean resume() {
        if (stopping) {
            return false;
        }
        if (started) {
            started = false;
            overload.resume();
            // the checks of the drain that ends stop with it
            drained.cancel(false);
            drained = new CompletableFuture<>();
            log.info("drain ended by an operator: new calls are taken again");
        }
        return true;
    }

    @Override
    public synchronized boolean draining() {
        return started;
    }

    /** Calls not yet ended: INVITEs still being admitted or held, and dialogs (ringing or established). */
    @Override
    public int callsInProgress() {
        return calls.notForwarded() + dialogs.live();
    }

    /** Waits, on the timers, for the cancelled INVITEs to be answered; at most {@code grace}. */
    void awaitNoInvites(Duration grace) {
        CompletableFuture<Void> none = once(calls::allAnswered);
        try {
            none.get(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            log.info("{} INVITEs still unanswered at shutdown", calls.size());
        } finally {
            none.cancel(false);
        }
    }

    /**
     * Completes once {@code condition} holds, checked on the timers every {@value #CHECK_MS} ms; cancelling it stops
     * the checks.
     */
    private CompletableFuture<Void> once(BooleanSupplier condition) {
        CompletableFuture<Void> holds = new CompletableFuture<>();
        ScheduledFuture<?> check = timers.scheduleWithFixedDelay(() -> {
            if (condition.getAsBoolean()) {
                holds.complete(null);
            }
        }, 0, CHECK_MS, TimeUnit.MILLISECONDS);
        holds.whenComplete((done, error) -> check.cancel(false));
        return holds;
    }
}
