package io.trunkgate.health;

import io.trunkgate.config.CarrierConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Which carriers are up, shared by the fleet: routing skips a carrier that is down, the SIP layer reports what
 * the carriers did with calls, and operators set a carrier down or up by hand. Thread-safe; never blocks.
 */
public interface CarrierHealth {

    /** For routing without health checks: every carrier is up. */
    CarrierHealth ALWAYS_UP = new CarrierHealth() {
        @Override
        public CarrierState state(String carrierId) {
            return CarrierState.up(Instant.EPOCH, "not checked", "-");
        }

        @Override
        public void answered(CarrierConfig carrier, int status, Optional<Duration> retryAfter) {
        }

        @Override
        public void timedOut(CarrierConfig carrier) {
        }

        @Override
        public CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration) {
            return CompletableFuture.completedFuture(state(carrier.id()));
        }
    };

    CarrierState state(String carrierId);

    default boolean isUp(String carrierId) {
        return state(carrierId).up();
    }

    /** A carrier's final response to a call; a 503 with {@code retryAfter} sets it down for that long. */
    void answered(CarrierConfig carrier, int status, Optional<Duration> retryAfter);

    /** A carrier gave a call no response within its answer-timeout. */
    void timedOut(CarrierConfig carrier);

    /**
     * An operator sets the carrier down (for {@code duration}, required) or up (held up for {@code duration},
     * or with no duration just cleared of any down state). Completes with the state in force fleet-wide.
     */
    CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration);
}
