package io.trunkgate.pace.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.HeldCall;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.ManualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The pacer on manual time, with the in-memory ledger: when each held call leaves is exact here, where on real time
 * (PacingConformance) only "never before its slot" holds on a busy machine.
 */
class TimerCarrierPacerTest {

    private final ManualTime time = new ManualTime();
    private final LocalSlotReserver ledger = new LocalSlotReserver(1, time::wallMicros);
    private final TimerCarrierPacer pacer = new TimerCarrierPacer(ledger, time.scheduler(), time::nanoTime);

    private List<CompletableFuture<PacingResult>> hold(CarrierConfig carrier, int calls) {
        List<CompletableFuture<PacingResult>> results = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            results.add(pacer.hold(carrier).result().toCompletableFuture());
        }
        return results;
    }

    /** The call's outcome, which must be there by now: on manual time nothing comes later by itself. */
    private static PacingResult outcome(HeldCall call) {
        CompletableFuture<PacingResult> result = call.result().toCompletableFuture();
        assertTrue(result.isDone(), "the call is still held");
        return result.join();
    }

    /**
     * Holds {@code calls} calls, releases what is due, then stands still for {@code stall} and runs what fell due
     * meanwhile, late.
     */
    private List<CompletableFuture<PacingResult>> heldThroughAStall(CarrierConfig carrier, int calls, Duration stall) {
        List<CompletableFuture<PacingResult>> results = hold(carrier, calls);
        time.runDue();
        time.stall(stall);
        time.runDue();
        return results;
    }

    /** How long a call held now waits for its slot (the clock moves on 1 s to release it). */
    private Duration nextCallsWait(CarrierConfig carrier) {
        HeldCall next = pacer.hold(carrier);
        time.advance(Duration.ofSeconds(1));
        return outcome(next).delay();
    }

    private static long released(List<CompletableFuture<PacingResult>> results) {
        return results.stream().filter(r -> r.isDone() && r.join().released()).count();
    }

    @Test
    void eachHeldCallLeavesAtItsSlotAndNotAMomentBefore() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        List<CompletableFuture<PacingResult>> results = hold(carrier, 4);
        time.runDue();
        assertEquals(1, released(results), "the first slot is now");
        for (int slot = 1; slot < 4; slot++) {
            time.advance(Duration.ofMillis(100).minusNanos(1));
            assertEquals(slot, released(results), "slot " + slot + " is 1 ns away");
            time.advance(Duration.ofNanos(1));
            assertEquals(slot + 1, released(results), "slot " + slot + " is due");
            assertEquals(Duration.ofMillis(100L * slot), results.get(slot).getNow(null).delay());
        }
        assertEquals(0, pacer.heldCount(carrier.id()));
    }

    @Test
    void aCallReleasedLaterThanTheCarriersBurstAfterItsSlotTakesANewSlot() {
        // 10 cps, burst 1: slots 100 ms apart, and a call may leave up to 100 ms after its slot
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        // slots 100, 200 and 300 pass while this gateway stands still
        List<CompletableFuture<PacingResult>> results = heldThroughAStall(carrier, 4, Duration.ofMillis(350));
        assertEquals(List.of(true, false, false, true), results.stream().map(CompletableFuture::isDone).toList(),
                "the call 50 ms late leaves; those 150 and 250 ms late, sent now, would go out back to back with it");
        HeldCall next = pacer.hold(carrier);
        time.runDue();
        time.advance(Duration.ofMillis(250).minusNanos(1));
        assertFalse(next.result().toCompletableFuture().isDone(),
                "the late calls took slots 400 and 500, before its 600: the fleet's spacing holds");
        time.advance(Duration.ofSeconds(1));
        assertTrue(outcome(next).released());
        assertEquals(4, released(results));
        assertEquals(Duration.ofMillis(400), results.get(1).join().delay(), "held from the start to its new slot");
    }

    @Test
    void aCallTakesANewSlotOnlyOnce() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        // the call of slot 200 takes slot 400 (the one of slot 100 takes 300 and leaves)
        List<CompletableFuture<PacingResult>> results = heldThroughAStall(carrier, 3, Duration.ofMillis(350));
        time.stall(Duration.ofMillis(300));
        time.runDue();
        assertTrue(results.get(2).isDone(), "250 ms past its second slot, it leaves");
        assertEquals(Duration.ZERO, nextCallsWait(carrier), "no third slot was taken ahead of it");
    }

    @Test
    void aLateCallWhoseNewSlotWouldMakeItWaitOverMaxWaitGoesElsewhereAndGivesTheSlotBack() {
        // 10 cps, burst 1, max-wait 300 ms: slots 0, 100, 200 and 300
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofMillis(300));
        List<CompletableFuture<PacingResult>> results = heldThroughAStall(carrier, 4, Duration.ofMillis(250));
        PacingResult late = results.get(1).join();
        assertEquals(PacingResult.Status.OVER_MAX_WAIT, late.status(), "its new slot, 400, is 400 ms after it was held");
        assertEquals(Duration.ofMillis(400), late.delay());
        assertTrue(results.get(2).join().released(), "50 ms late, within the carrier's burst: it leaves");
        assertEquals(Duration.ofMillis(150), nextCallsWait(carrier), "slot 400, given back, is the next call's");
    }

    @Test
    void aCallTheLedgerHeldIsJudgedLateAgainWhenItsTurnComes() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        List<CompletableFuture<PacingResult>> results = hold(carrier, 3); // slots 0, 100 and 200
        time.stall(Duration.ofMillis(110));
        time.runDue(); // the second leaves at 110, so the ledger gives the third its turn at 209.5
        time.advance(Duration.ofMillis(90));
        assertFalse(results.get(2).isDone(), "at its slot, 200, it waits for its turn");
        time.stall(Duration.ofMillis(200)); // this gateway stands still through its turn
        time.runDue();
        assertEquals(Duration.ofMillis(400), results.get(2).join().delay(), "200 ms late, it took slot 400 and left");
        assertEquals(Duration.ofMillis(100), nextCallsWait(carrier), "the slot after it, not the same moment");
    }

    @Test
    void aCancelledCallIsNeverReleasedAndItsSlotGoesToTheNextCall() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        List<HeldCall> calls = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            calls.add(pacer.hold(carrier));
        }
        time.runDue();
        assertTrue(calls.get(2).cancel(), "its slot is 200 ms away: still held");
        assertFalse(calls.get(0).cancel(), "the first call was released at once");
        HeldCall next = pacer.hold(carrier);
        time.advance(Duration.ofMillis(200));
        assertEquals(PacingResult.Status.CANCELLED, outcome(calls.get(2)).status());
        PacingResult nextResult = outcome(next);
        assertEquals(PacingResult.Status.RELEASED, nextResult.status());
        assertEquals(Duration.ofMillis(200), nextResult.delay(), "the cancelled call's slot, given back");
        assertEquals(0, pacer.heldCount(carrier.id()));
    }

    @Test
    void aCallOverTheMaxWaitIsRefusedWithItsWaitAndTakesNoSlot() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofMillis(150));
        List<CompletableFuture<PacingResult>> results = hold(carrier, 3);
        PacingResult refused = results.get(2).getNow(null);
        assertEquals(PacingResult.Status.OVER_MAX_WAIT, refused.status());
        assertEquals(Duration.ofMillis(200), refused.delay());
        time.advance(Duration.ofMillis(100));
        HeldCall next = pacer.hold(carrier);
        time.advance(Duration.ofMillis(100));
        assertEquals(Duration.ofMillis(100), outcome(next).delay(), "the refusal left the 200 ms slot free");
    }

    /** A slot reserved outside the pacer, as lua/admit-pace.lua reserves one with the call's admission. */
    private Reservation reservedElsewhere(CarrierConfig carrier) {
        return ledger.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
    }

    @Test
    void aCallWhoseSlotCameWithItsAdmissionLeavesAtThatSlot() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        pacer.hold(carrier);
        time.runDue();
        HeldCall call = pacer.hold(carrier, reservedElsewhere(carrier));
        assertEquals(1, pacer.heldCount(carrier.id()));
        time.advance(Duration.ofMillis(100).minusNanos(1));
        assertFalse(call.result().toCompletableFuture().isDone(), "its slot is 1 ns away");
        time.advance(Duration.ofNanos(1));
        assertEquals(new PacingResult(PacingResult.Status.RELEASED, Duration.ofMillis(100)), outcome(call));
        assertEquals(0, pacer.heldCount(carrier.id()));
    }

    @Test
    void aSlotThatCameWithTheAdmissionGoesBackWhenTheCarrierHoldsAsManyAsItMay() {
        CarrierConfig carrier = Carriers.carrier("held-one-" + System.nanoTime(), 10, 1, Duration.ofSeconds(1),
                List.of(), 1);
        pacer.hold(carrier);
        time.runDue();
        HeldCall waiting = pacer.hold(carrier);
        Reservation reserved = reservedElsewhere(carrier);
        assertEquals(Duration.ofMillis(200), reserved.delay());
        assertEquals(PacingResult.Status.HOLD_FULL, outcome(pacer.hold(carrier, reserved)).status());
        assertEquals(Duration.ofMillis(200), reservedElsewhere(carrier).delay(), "its 200 ms slot was given back");
        assertTrue(waiting.cancel());
    }

    @Test
    void aSlotOverTheMaxWaitThatCameWithTheAdmissionIsRefusedWithItsWait() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofMillis(50));
        pacer.hold(carrier);
        time.runDue();
        PacingResult refused = outcome(pacer.hold(carrier, reservedElsewhere(carrier)));
        assertEquals(new PacingResult(PacingResult.Status.OVER_MAX_WAIT, Duration.ofMillis(100)), refused);
        assertEquals(0, pacer.heldCount(carrier.id()));
    }
}
