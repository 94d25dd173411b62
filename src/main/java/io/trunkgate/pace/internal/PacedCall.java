package io.trunkgate.pace.internal;

import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/** A held call; completing its future is the single point where release and cancel race. */
final class PacedCall implements HeldCall {

    private static final PacingResult CANCELLED = new PacingResult(PacingResult.Status.CANCELLED, Duration.ZERO);

    private final CompletableFuture<PacingResult> result = new CompletableFuture<>();
    private volatile Future<?> scheduledRelease;
    private Runnable giveBack;
    private boolean cancelled;

    @Override
    public CompletionStage<PacingResult> result() {
        return result;
    }

    @Override
    public boolean cancel() {
        if (!result.complete(CANCELLED)) {
            return false;
        }
        Future<?> release = scheduledRelease;
        if (release != null) {
            release.cancel(false);
        }
        Runnable slot;
        synchronized (this) {
            cancelled = true;
            slot = giveBack;
        }
        if (slot != null) {
            slot.run();
        }
        return true;
    }

    /** Sets what returns the call's slot: run now if the call is already cancelled, else on cancel. */
    void slotReserved(Runnable giveBack) {
        synchronized (this) {
            if (!cancelled) {
                this.giveBack = giveBack;
                return;
            }
        }
        giveBack.run();
    }

    boolean isDone() {
        return result.isDone();
    }

    boolean complete(PacingResult outcome) {
        return result.complete(outcome);
    }

    void fail(Throwable error) {
        result.completeExceptionally(error);
    }

    void scheduled(Future<?> release) {
        this.scheduledRelease = release;
        if (result.isDone()) {
            release.cancel(false);
        }
    }
}
