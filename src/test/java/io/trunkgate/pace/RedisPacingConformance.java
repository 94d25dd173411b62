package io.trunkgate.pace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.pace.internal.TimerCarrierPacer;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.RedisFleet;
import io.trunkgate.testing.ScriptClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pacing suite on a Redis topology, one client per gateway. */
abstract class RedisPacingConformance extends PacingConformance {

    private RedisFleet fleet;

    protected abstract RedisBackend backend();

    @BeforeAll
    void connect() {
        fleet = new RedisFleet(backend(), 4);
    }

    @AfterAll
    void disconnect() {
        fleet.close();
    }

    @Override
    protected SlotReserver reserver(int instance) {
        return new RedisSlotReserver(fleet.client(instance), "tg-test");
    }

    /**
     * Redis's clock steps back 60 s: the slots already handed out lie at most max-wait ahead, so the carrier's next
     * slot comes one interval after the last of them, and reservations are refused for no longer than that.
     */
    @Test
    void afterRedisClockStepsBackReservationsResumeWithinMaxWait() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        SlotReserver reserver = reserver(0);
        ScriptClock clock = new ScriptClock(fleet.client(0), "tg-test", "c:" + carrier.id());
        Reservation last = null;
        for (Reservation r = reserve(reserver, carrier); r.reserved(); r = reserve(reserver, carrier)) {
            last = r;
        }
        assertEquals(ScriptClock.START_MICROS + 1_000_000, last.slotMicros(), "11 slots, the last at max-wait");

        clock.advance(Duration.ofSeconds(-60));
        assertFalse(reserve(reserver, carrier).reserved(), "the old slots still lie ahead, up to max-wait");
        clock.advance(Duration.ofMillis(100));
        Reservation resumed = reserve(reserver, carrier);
        assertTrue(resumed.reserved(), "one interval after the step back, not 60 s");
        assertEquals(Duration.ofSeconds(1), resumed.delay(), "one interval after the furthest old slot could be");
        assertEquals(clock.micros() + 1_000_000, resumed.slotMicros());
    }

    /**
     * A reload gives a carrier another rate (a new configuration of the same id): its next reservations are spaced
     * at the new interval, also those asked for with an admission (its slot request), not at the rate the reserver
     * saw first.
     */
    @Test
    void aCarrierReloadedWithAnotherRateIsPacedAtIt() {
        CarrierConfig before = Carriers.carrier(10, 1, Duration.ofSeconds(30));
        CarrierConfig after = Carriers.carrier(before.id(), 1, 1, Duration.ofSeconds(30), List.of(), 1000);
        RedisSlotReserver reserver = new RedisSlotReserver(fleet.client(0), "tg-test");
        new ScriptClock(fleet.client(0), "tg-test", "c:" + before.id()); // Redis's clock stands still
        Reservation first = reserve(reserver, before);
        assertEquals(100_000, reserve(reserver, before).slotMicros() - first.slotMicros(), "10 calls/s");
        Reservation third = reserve(reserver, after);
        assertEquals(1_000_000, reserve(reserver, after).slotMicros() - third.slotMicros(), "1 call/s");
        assertEquals(List.of("1000000", "1", "30000000"), reserver.request(after, reserver).scriptArgs());
        assertEquals(List.of("100000", "1", "30000000"), reserver.request(before, reserver).scriptArgs());
    }

    /**
     * Two gateways keep a carrier's slots booked up to max-wait; one stands still for half a second while the other
     * goes on. The calls whose slots passed meanwhile must not go out back to back beside the other gateway's: they
     * take new slots, with the carrier's max-wait (with a shorter one pace.lua would take the TAT for a step back of
     * its clock, pull it back and hand out slots the fleet already holds), and are refused with OVER_MAX_WAIT (to go
     * to another carrier) when that makes them wait longer than max-wait.
     */
    @Test
    void callsAGatewaySendsLateAfterStandingStillNeverTakeTheCarrierOverItsRate() {
        CarrierConfig carrier = Carriers.carrier(10, 1, Duration.ofSeconds(1));
        ScriptClock redisClock = new ScriptClock(fleet.client(0), "tg-test", "c:" + carrier.id());
        ManualTime[] time = {new ManualTime(), new ManualTime()};
        List<TimerCarrierPacer> gateways = new ArrayList<>();
        for (int g = 0; g < 2; g++) {
            gateways.add(new TimerCarrierPacer(onClock(reserver(g), redisClock, time[g]), time[g].scheduler(),
                    time[g]::nanoTime));
        }
        List<Long> sentMillis = new ArrayList<>();
        Random order = new Random(7);
        for (int ms = 0; ms < 6000; ms++) {
            boolean standingStill = ms >= 1500 && ms < 2000; // gateway 0
            if (ms < 3000 && ms % 50 == 0) { // each gateway offers twice the carrier's rate, first in turn at random
                int first = order.nextInt(2);
                for (int g : new int[] {first, 1 - first}) {
                    if (g == 1 || !standingStill) {
                        ManualTime clock = time[g];
                        gateways.get(g).hold(carrier).result().thenAccept(result -> {
                            if (result.released()) {
                                sentMillis.add(clock.nanoTime() / 1_000_000);
                            }
                        });
                    }
                }
            }
            if (standingStill) {
                time[0].stall(Duration.ofMillis(1));
            } else {
                time[0].advance(Duration.ofMillis(1));
            }
            time[1].advance(Duration.ofMillis(1));
        }
        sentMillis.sort(null);
        for (int i = 0; i < sentMillis.size(); i++) {
            long from = sentMillis.get(i);
            long inSecond = sentMillis.stream().filter(t -> t >= from && t < from + 1000).count();
            assertTrue(inSecond <= 11, inSecond + " calls reached the carrier in the second from " + from
                    + " ms (at most cps + burst = 11): " + sentMillis);
        }
        assertTrue(sentMillis.size() >= 38, "every slot from 0 to 3.9 s went to a call but those of the two that "
                + "passed while their gateway stood still: " + sentMillis);
    }

    /** {@code reserver} on the gateway's manual time: Redis's clock set to it at each call, the reply awaited. */
    private static SlotReserver onClock(SlotReserver reserver, ScriptClock redisClock, ManualTime time) {
        return new SlotReserver() {
            @Override
            public CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
                redisClock.set(ScriptClock.START_MICROS + time.nanoTime() / 1000);
                return CompletableFuture.completedFuture(reserver.reserve(carrier, maxWait).toCompletableFuture().join());
            }

            @Override
            public CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
                redisClock.set(ScriptClock.START_MICROS + time.nanoTime() / 1000);
                return CompletableFuture.completedFuture(reserver.giveBack(carrier, reservation).toCompletableFuture()
                        .join());
            }
        };
    }

    private static Reservation reserve(SlotReserver reserver, CarrierConfig carrier) {
        return reserver.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
    }
}
