package io.trunkgate.route;

import java.util.List;
import java.util.Set;

/**
 * What a reroute hook sees when a call leaves a carrier.
 *
 * @param responseCode the carrier's final response for {@link RerouteReason#FAILURE_RESPONSE}, else 0
 * @param tried        carriers already tried for this call, in order, the failed one last
 * @param remaining    the carriers the configured chain would try next, in order
 * @param down         the carriers known to be down right now (among all configured); they are skipped if named
 */
public record RerouteContext(String callId, String number, String fromCarrier, RerouteReason reason,
                             int responseCode, List<String> tried, List<String> remaining, Set<String> down) {
    public RerouteContext {
        tried = List.copyOf(tried);
        remaining = List.copyOf(remaining);
        down = Set.copyOf(down);
    }

    /** A context with no carrier down. */
    public RerouteContext(String callId, String number, String fromCarrier, RerouteReason reason, int responseCode,
                          List<String> tried, List<String> remaining) {
        this(callId, number, fromCarrier, reason, responseCode, tried, remaining, Set.of());
    }
}
