package io.trunkgate.health;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.dns.CarrierAddress;
import java.time.Duration;
import java.util.concurrent.CompletionStage;

/** Sends one health probe (SIP OPTIONS) to one of a carrier's addresses. */
public interface ProbeSender {

    /** The status of the carrier's final response, or 0 when none came within {@code timeout}. */
    CompletionStage<Integer> probe(CarrierConfig carrier, CarrierAddress address, Duration timeout);
}
