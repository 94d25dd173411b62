package io.trunkgate.health.internal;

import io.trunkgate.dns.CarrierAddress;
import java.util.Optional;

/**
 * What a health state is about: a carrier as a whole, or one address of a carrier named by a host name (whose
 * addresses are checked one by one).
 */
record Subject(String carrierId, Optional<CarrierAddress> address) {

    static Subject carrier(String carrierId) {
        return new Subject(carrierId, Optional.empty());
    }

    static Subject address(String carrierId, CarrierAddress address) {
        return new Subject(carrierId, Optional.of(address));
    }

    /** {@code <prefix>:{c:<id>}:health}, with {@code :<address>} after it for an address. */
    String redisKey(String keyPrefix) {
        return keyPrefix + ":{c:" + carrierId + "}:health" + address.map(a -> ":" + a.label()).orElse("");
    }

    @Override
    public String toString() {
        return "carrier " + carrierId + address.map(a -> " address " + a.label()).orElse("");
    }
}
