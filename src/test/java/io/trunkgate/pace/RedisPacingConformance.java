package io.trunkgate.pace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.testing.Carriers;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.RedisFleet;
import io.trunkgate.testing.ScriptClock;
import java.time.Duration;
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

    private static Reservation reserve(SlotReserver reserver, CarrierConfig carrier) {
        return reserver.reserve(carrier, carrier.maxWait()).toCompletableFuture().join();
    }
}
