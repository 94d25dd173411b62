package io.trunkgate.route;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.pace.PacingResult;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** What to do next with a call: send it to a carrier now, or give up. */
public sealed interface RoutingStep {

    /**
     * The carrier's slot has come: send the call now, to {@code address} (one of the carrier's). {@code held} is
     * how long it waited for the slot; {@code shadow} what the carrier's shadow pacing or max-concurrent would have
     * done to it.
     */
    record Send(CarrierConfig carrier, CarrierAddress address, Duration held, PacingResult.Shadow shadow)
            implements RoutingStep {
    }

    /**
     * No carrier is left. {@code retryAfter} is the shortest time after which some carrier tried would have
     * had a slot within its max-wait; empty when no carrier was refused for pacing. {@code unresolved}: the
     * carriers of the call whose host names did not resolve (tried, or passed over as down for it), in order.
     */
    record Exhausted(Optional<Duration> retryAfter, List<String> unresolved) implements RoutingStep {
        public Exhausted {
            unresolved = List.copyOf(unresolved);
        }

        public Exhausted(Optional<Duration> retryAfter) {
            this(retryAfter, List.of());
        }
    }

    /** The caller cancelled while the call was held; it was never sent. */
    record Cancelled() implements RoutingStep {
    }
}
