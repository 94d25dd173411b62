/**
 * Routing: the longest number prefix picks a chain of carriers, and {@link io.trunkgate.route.CallRouting}
 * walks it for one call (pacing each attempt, passing over carriers that are down, failing over on max-wait,
 * failure responses or silence); {@link io.trunkgate.route.RerouteHooks} finds the reroute hook (class path,
 * plugin jars or HTTP).
 */
package io.trunkgate.route;
