package io.trunkgate.config;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * One downstream carrier (conf/carriers/*.conf).
 *
 * @param cps             pacing rate, calls per second (may be fractional)
 * @param burst           calls allowed back to back before spacing applies (1 = strict spacing)
 * @param maxWait         the longest a call may be held for a slot before it is rerouted
 * @param failoverCodes   final response codes that move the call to the next carrier
 * @param failoverOnTimeout whether silence past {@code answerTimeout} moves the call on
 * @param alternates      carriers tried after this one when the route names no further carrier
 * @param maxHeld         how many calls this gateway holds for the carrier at once; beyond it a call is
 *                        treated as over max-wait
 * @param answerTimeout   how long to wait for any response (a provisional one will do) before failing over:
 *                        silence means the carrier is not handling the call
 * @param ringTimeout     how long a call may ring (from the carrier's first response) without a final answer;
 *                        then it is cancelled and answered 408, with no failover: a callee was already alerted
 */
public record CarrierConfig(String id, SipUri uri, double cps, int burst, Duration maxWait,
                            Set<Integer> failoverCodes, boolean failoverOnTimeout, List<String> alternates,
                            int maxHeld, Duration answerTimeout, Duration ringTimeout) {
    public CarrierConfig {
        failoverCodes = Set.copyOf(failoverCodes);
        alternates = List.copyOf(alternates);
    }
}
