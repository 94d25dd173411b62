package io.trunkgate.health;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
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
        public boolean isUp(CarrierConfig carrier, CarrierAddress address) {
            return true;
        }

        @Override
        public Map<CarrierAddress, CarrierState> addresses(CarrierConfig carrier) {
            return Map.of();
        }

        @Override
        public void answered(CarrierConfig carrier, CarrierAddress address, int status,
                             Optional<Duration> retryAfter, Caller caller) {
        }

        @Override
        public void timedOut(CarrierConfig carrier, CarrierAddress address) {
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

    /**
     * Whether calls may go to this address of the carrier. Only a carrier named by a host name has addresses of
     * its own health; for one named by an IP address this is always true (the carrier's own state decides).
     */
    boolean isUp(CarrierConfig carrier, CarrierAddress address);

    /** The state of each address the carrier's host name resolves to; empty for a carrier named by an IP address. */
    Map<CarrierAddress, CarrierState> addresses(CarrierConfig carrier);

    /**
     * A carrier's final response to {@code caller}'s call sent to {@code address}. A 503 with {@code retryAfter}
     * sets the whole carrier down for that long only once such answers came to calls of several peers for several
     * numbers (one refused number, or one caller, does not take the carrier away from the others).
     */
    void answered(CarrierConfig carrier, CarrierAddress address, int status, Optional<Duration> retryAfter,
                  Caller caller);

    /**
     * A carrier's address gave a call no response within the carrier's answer-timeout: a failure for its probes'
     * count and for its {@code call-failures}.
     */
    void timedOut(CarrierConfig carrier, CarrierAddress address);

    /**
     * An operator sets the carrier down (for {@code duration}, required) or up (held up for {@code duration},
     * or with no duration just cleared of any down state). Completes with the state in force fleet-wide.
     */
    CompletionStage<CarrierState> set(CarrierConfig carrier, boolean up, Optional<Duration> duration);
}
