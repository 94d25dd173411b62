package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The in-memory fallback while Redis is unreachable: the same slot rule as pace.lua, at this instance's
 * share of each carrier's rate (cps / fleet size), so the fleet together stays within the rate.
 */
public final class LocalSlotReserver implements SlotReserver {

    private final int fleetSize;
    private final LongSupplier clockMicros;
    private final Map<String, Long> theoretical = new HashMap<>();

    public LocalSlotReserver(int fleetSize, LongSupplier clockMicros) {
        this.fleetSize = fleetSize;
        this.clockMicros = clockMicros;
    }

    @Override
    public synchronized CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
        long now = clockMicros.getAsLong();
        long interval = carrier.intervalMicros(fleetSize);
        long tat = Math.max(now, theoretical.getOrDefault(carrier.id(), now));
        long slot = Math.max(now, tat - (carrier.burst() - 1) * interval);
        long delay = slot - now;
        boolean reserved = delay <= maxWait.toNanos() / 1000;
        if (reserved) {
            theoretical.put(carrier.id(), tat + interval);
        }
        return CompletableFuture.completedFuture(new Reservation(reserved, Duration.ofNanos(delay * 1000), slot, now,
                Reservation.Clock.LOCAL));
    }

    /** Only the newest reservation, as give-back.lua does without its returned set. */
    @Override
    public synchronized CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
        long interval = carrier.intervalMicros(fleetSize);
        long tat = reservation.slotMicros() + carrier.burst() * interval;
        theoretical.computeIfPresent(carrier.id(), (id, stored) -> stored == tat ? tat - interval : stored);
        return CompletableFuture.completedFuture(null);
    }
}
