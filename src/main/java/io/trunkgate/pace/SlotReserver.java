package io.trunkgate.pace;

import io.trunkgate.config.CarrierConfig;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** Reserves a carrier's next send slot, fleet-wide; returns the wait rather than waiting. */
public interface SlotReserver {

    /**
     * Takes the carrier's next slot if it is at most {@code maxWait} away. Completes exceptionally with
     * {@link PacerUnavailableException} when the shared ledger cannot be reached.
     */
    CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait);

    /**
     * Gives back the slot of a reservation whose call will never be sent (cancelled or rerouted while held),
     * so a later call can have it, when that keeps the carrier's spacing exact; otherwise the slot stays a gap.
     * Best effort: completes normally also when nothing could be given back.
     */
    CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation);
}
