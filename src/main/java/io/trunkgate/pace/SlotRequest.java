package io.trunkgate.pace;

import io.trunkgate.config.CarrierConfig;
import java.util.List;

/**
 * A carrier slot to reserve in the same Redis script call as the call's admission (lua/admit-pace.lua): an
 * admitted call then needs one round trip, not two. Made by {@link Pacing#slotRequest}; usable only where the
 * admission's keys and the carrier's ledger are on one Redis node (not in a cluster).
 */
public interface SlotRequest {

    CarrierConfig carrier();

    /** The carrier's ledger key (lua/pace.lua's KEYS[1]). */
    String ledgerKey();

    /** lua/pace.lua's ARGV for this carrier and its max-wait. */
    List<String> scriptArgs();

    /** lua/pace.lua's reply, as a reservation on the fleet-wide ledger. */
    Reservation reservation(List<Object> reply);

    /** Returns a slot reserved for a call that never holds it (as {@link SlotReserver#giveBack}). */
    void giveBack(Reservation reservation);
}
