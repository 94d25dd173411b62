package io.trunkgate.pace.internal;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult.Status;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Reserves each call's slot, then releases it from one timer thread at the slot time. A carrier's held
 * calls are counted against its max-held before anything is reserved, so a full queue wastes no slot.
 * A held call is completed on the timer thread itself, in order (one whose slot is already due when its
 * reservation comes back, on the thread that delivered the reservation): a hand-off to another pool would add
 * its own scheduling delay to each release and let two calls a slot apart reach the carrier back to back. What
 * the caller does with a release must therefore be short and must not block (the SIP stack sends without
 * waiting, TCP connects included). A call cancelled while held gives its slot back to the ledger. A carrier in
 * shadow pacing has each call's slot reserved as usual and the call released at once, with the wait it would have
 * had ({@link PacingResult.Shadow}). A call that would leave later after its slot than the carrier's burst
 * allows (this gateway stood still meanwhile) takes a new slot, once: see {@link #lateToleranceNanos}.
 */
public final class TimerCarrierPacer implements CarrierPacer {

    private static final long LATE_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final SlotReserver reserver;
    private final ScheduledExecutorService timer;
    private final LongSupplier nanoClock;
    private final ConcurrentMap<String, AtomicInteger> held = new ConcurrentHashMap<>();
    private final Set<PacedCall> pending = ConcurrentHashMap.newKeySet();
    private final ServerClock clock;
    private final ConcurrentMap<String, ReleaseLedger> ledgers = new ConcurrentHashMap<>();

    /** @param timer one thread, which releases the held calls in order; its owner stops it */
    public TimerCarrierPacer(SlotReserver reserver, ScheduledExecutorService timer) {
        this(reserver, timer, System::nanoTime);
    }

    /**
     * @param nanoClock the time {@code timer} schedules by ({@link System#nanoTime} for a real executor; a test
     *                  that runs the timer's tasks itself gives the time it moves on)
     */
    public TimerCarrierPacer(SlotReserver reserver, ScheduledExecutorService timer, LongSupplier nanoClock) {
        this.reserver = reserver;
        this.timer = timer;
        this.nanoClock = nanoClock;
        this.clock = new ServerClock(nanoClock.getAsLong());
    }

    @Override
    public HeldCall hold(CarrierConfig carrier) {
        PacedCall call = enter(carrier);
        if (!call.isDone()) {
            reserve(call, carrier, nanoClock.getAsLong(), false);
        }
        return call;
    }

    @Override
    public HeldCall hold(CarrierConfig carrier, Reservation reserved) {
        PacedCall call = enter(carrier);
        if (call.isDone()) {
            if (reserved.reserved()) {
                reserver.giveBack(carrier, reserved);
            }
        } else {
            onReservation(call, carrier, nanoClock.getAsLong(), false, reserved, null);
        }
        return call;
    }

    /**
     * Always with the carrier's max-wait, a second reservation too: pace.lua takes a TAT further ahead than the
     * max-wait it is given for a step back of Redis's clock and pulls it back, so a shorter one would hand out
     * slots the fleet already holds.
     */
    private void reserve(PacedCall call, CarrierConfig carrier, long heldSince, boolean retaken) {
        reserver.reserve(carrier, carrier.maxWait()).whenComplete((reservation, error) ->
                onReservation(call, carrier, heldSince, retaken, reservation, error));
    }

    /** A new held call, counted against the carrier's max-held: completed at once as HOLD_FULL if over it. */
    private PacedCall enter(CarrierConfig carrier) {
        PacedCall call = new PacedCall();
        AtomicInteger count = held.computeIfAbsent(carrier.id(), id -> new AtomicInteger());
        if (count.incrementAndGet() > carrier.maxHeld()) {
            count.decrementAndGet();
            call.complete(new PacingResult(Status.HOLD_FULL, Duration.ZERO));
            return call;
        }
        pending.add(call);
        call.result().whenComplete((result, error) -> {
            count.decrementAndGet();
            pending.remove(call);
        });
        return call;
    }

    /**
     * @param heldSince when the call was first held: a late call's wait counts from then, and a second slot that
     *                  would make it longer than the carrier's max-wait is given back
     * @param retaken   whether this is the call's second reservation, taken because it was released too late
     */
    private void onReservation(PacedCall call, CarrierConfig carrier, long heldSince, boolean retaken,
                               Reservation reservation, Throwable error) {
        long arrived = nanoClock.getAsLong();
        if (reservation != null && reservation.clock() == Reservation.Clock.REDIS) {
            clock.observe(reservation.serverTimeMicros(), arrived);
        }
        if (error != null) {
            call.fail(error);
        } else if (carrier.shadowPacing()) {
            // Sent at once; the slot stays reserved (the carrier's ledger moves on as enforced pacing would move it),
            // and a slot over max-wait reserved nothing, as enforced.
            call.complete(new PacingResult(Status.RELEASED, Duration.ZERO,
                    new PacingResult.Shadow(reservation.delay(), !reservation.reserved(), false)));
        } else if (!reservation.reserved()) {
            call.complete(new PacingResult(Status.OVER_MAX_WAIT, retaken
                    ? reservation.delay().plusNanos(arrived - heldSince) : reservation.delay()));
        } else {
            long releaseIn = reservation.clock() == Reservation.Clock.REDIS
                    ? clock.toLocalNanos(reservation.slotMicros()) - arrived : reservation.delay().toNanos();
            Duration held = retaken
                    ? Duration.ofNanos(Math.max(0, arrived + releaseIn - heldSince)) : reservation.delay();
            if (held.compareTo(carrier.maxWait()) > 0) {
                reserver.giveBack(carrier, reservation);
                call.complete(new PacingResult(Status.OVER_MAX_WAIT, held));
                return;
            }
            PacingResult released = new PacingResult(Status.RELEASED, held);
            if (!reservation.delay().isZero()) {
                call.slotReserved(() -> reserver.giveBack(carrier, reservation));
            }
            scheduleRelease(call, carrier, released, arrived + releaseIn, heldSince, retaken);
        }
    }

    /**
     * How late after its slot a call may still be released. Later than this (this gateway stood still: a long GC
     * pause, starved of CPU, stopped), it would go out with the calls of the slots after it, this gateway's and
     * the fleet's, and the carrier would see more than its cps: it takes a new slot instead, once. The carrier's
     * burst absorbs what comes within it; the floor keeps a slow Redis reply (all calls equally late) from
     * costing a second reservation.
     */
    static long lateToleranceNanos(CarrierConfig carrier) {
        return Math.max(carrier.burst() * carrier.interval().toNanos(), LATE_FLOOR_NANOS);
    }

    /**
     * Releases the call at {@code dueNanos}, or later if the carrier's release ledger says so; a call first
     * reserved that would leave over {@link #lateToleranceNanos} after its slot, whether its timer fired late or
     * the ledger held it, takes a new slot instead.
     */
    private void scheduleRelease(PacedCall call, CarrierConfig carrier, PacingResult released, long dueNanos,
                                 long heldSince, boolean retaken) {
        if (call.isDone()) {
            return;
        }
        long now = nanoClock.getAsLong();
        long wait = dueNanos - now;
        if (wait <= 0) {
            if (!retaken && -wait > lateToleranceNanos(carrier)) {
                call.slotReserved(() -> { }); // its slot is past: nothing to give back
                reserve(call, carrier, heldSince, true);
                return;
            }
            wait = ledgers.computeIfAbsent(carrier.id(), id -> new ReleaseLedger())
                    .tryRelease(now, carrier.interval().toNanos(), carrier.burst());
            if (wait == 0) {
                call.complete(released);
                return;
            }
        }
        call.scheduled(timer.schedule(() -> scheduleRelease(call, carrier, released, dueNanos, heldSince, retaken),
                wait, TimeUnit.NANOSECONDS));
    }

    @Override
    public int heldCount(String carrierId) {
        AtomicInteger count = held.get(carrierId);
        return count == null ? 0 : count.get();
    }

    @Override
    public void close() {
        pending.forEach(PacedCall::cancel);
    }
}
