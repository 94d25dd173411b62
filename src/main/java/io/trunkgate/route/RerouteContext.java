package io.trunkgate.route;

import java.util.List;

/**
 * What a reroute hook sees when a call leaves a carrier.
 *
 * @param responseCode the carrier's final response for {@link RerouteReason#FAILURE_RESPONSE}, else 0
 * @param tried        carriers already tried for this call, in order, the failed one last
 * @param remaining    the carriers the configured chain would try next, in order
 */
public record RerouteContext(String callId, String number, String fromCarrier, RerouteReason reason,
                             int responseCode, List<String> tried, List<String> remaining) {
    public RerouteContext {
        tried = List.copyOf(tried);
        remaining = List.copyOf(remaining);
    }
}
