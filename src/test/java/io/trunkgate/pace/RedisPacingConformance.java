package io.trunkgate.pace;

import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.RedisFleet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

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
}
