package io.trunkgate.pace;

import io.trunkgate.config.CarrierConfig;

/**
 * Holds calls until their carrier's slot. Each call reserves the carrier's next slot fleet-wide and is
 * released from a timer at that time; no thread waits per held call.
 */
public interface CarrierPacer extends AutoCloseable {

    /** Reserves the carrier's next slot for one call and holds the call until then. */
    HeldCall hold(CarrierConfig carrier);

    /**
     * Holds the call until a slot already reserved on the fleet-wide ledger (with its admission, see
     * {@link SlotRequest}); a slot the call does not hold after all (max-held reached, cancelled) is given back.
     */
    HeldCall hold(CarrierConfig carrier, Reservation reserved);

    /** How many calls this gateway holds for the carrier right now. */
    int heldCount(String carrierId);

    /** Calls still held complete as cancelled. */
    @Override
    void close();
}
