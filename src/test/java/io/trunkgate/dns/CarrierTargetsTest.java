package io.trunkgate.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierTargets.Target;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The order one call tries a carrier's addresses in: RFC 2782 priorities and weights. */
class CarrierTargetsTest {

    private static CarrierAddress at(String ip) {
        return new CarrierAddress(ip, 5060, Transport.UDP);
    }

    @Test
    void priorityGroupsComeInOrderAndEachTargetsAddressesStayTogether() {
        CarrierTargets targets = new CarrierTargets(List.of(
                new Target("backup", 20, 100, List.of(at("192.0.2.9"))),
                new Target("a", 10, 1, List.of(at("192.0.2.1"), at("192.0.2.2"))),
                new Target("b", 10, 1, List.of(at("192.0.2.3")))), Duration.ofSeconds(60));
        SplittableRandom random = new SplittableRandom(7);
        int aFirst = 0;
        for (int call = 0; call < 400; call++) {
            List<CarrierAddress> order = targets.order(random);
            assertEquals(at("192.0.2.9"), order.get(3), "the lower priority (higher number) last: " + order);
            int a = order.indexOf(at("192.0.2.1"));
            assertEquals(at("192.0.2.2"), order.get(a + 1), "a target's addresses in DNS order: " + order);
            aFirst += a == 0 ? 1 : 0;
        }
        assertTrue(aFirst > 150 && aFirst < 250, "equal weights take turns: a first in " + aFirst + " of 400");
    }

    @Test
    void aTargetOfWeightZeroIsTriedFirstOnlyRarely() {
        CarrierTargets targets = new CarrierTargets(List.of(
                new Target("heavy", 10, 100, List.of(at("192.0.2.1"))),
                new Target("spare", 10, 0, List.of(at("192.0.2.2")))), Duration.ofSeconds(60));
        SplittableRandom random = new SplittableRandom(11);
        int spareFirst = 0;
        for (int call = 0; call < 1000; call++) {
            List<CarrierAddress> order = targets.order(random);
            assertEquals(2, order.size());
            spareFirst += order.get(0).equals(at("192.0.2.2")) ? 1 : 0;
        }
        assertTrue(spareFirst > 0 && spareFirst < 30, "weight 0 first in " + spareFirst + " of 1000 calls");
    }
}
