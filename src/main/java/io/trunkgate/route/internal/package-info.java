/** The HTTP reroute hook behind {@link io.trunkgate.route.RerouteHooks#http}. */
package io.trunkgate.route.internal;
