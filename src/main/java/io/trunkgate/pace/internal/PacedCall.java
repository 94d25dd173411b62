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
        return true;
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
