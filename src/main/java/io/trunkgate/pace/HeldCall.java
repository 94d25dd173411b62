package io.trunkgate.pace;

import java.util.concurrent.CompletionStage;

/**
 * A call waiting for its carrier slot. Exactly one of release and cancel wins: a cancelled call is never
 * released, and a released call can no longer be cancelled here (its CANCEL goes to the carrier).
 */
public interface HeldCall {

    /**
     * Completes when the call is released, refused for its carrier, or cancelled; exceptionally with
     * {@link PacerUnavailableException} when no slot could be reserved.
     */
    CompletionStage<PacingResult> result();

    /** Cancels the call if it is still held; returns false if it was already released or refused. */
    boolean cancel();
}
