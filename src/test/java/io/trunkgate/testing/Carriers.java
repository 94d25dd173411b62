package io.trunkgate.testing;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.SipUri;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Carrier configurations for tests, each with a fresh id so that tests never share a slot ledger. */
public final class Carriers {

    private Carriers() {
    }

    public static CarrierConfig carrier(double cps, int burst, Duration maxWait) {
        return carrier("carrier-" + UUID.randomUUID(), cps, burst, maxWait, List.of(), 1000);
    }

    public static CarrierConfig carrier(String id, double cps, int burst, Duration maxWait, List<String> alternates,
                                        int maxHeld) {
        return new CarrierConfig(id, SipUri.parse("sip:127.0.0.1:5070"), cps, burst, maxWait, Set.of(503, 408),
                true, alternates, maxHeld, Duration.ofSeconds(8), Duration.ofMinutes(2));
    }
}
