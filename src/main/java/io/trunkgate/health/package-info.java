/**
 * The carrier health port: {@link io.trunkgate.health.FleetHealth#open} keeps which carriers are up, shared by
 * the fleet in Redis, from OPTIONS probes, what carriers did with calls (timeouts, 503, Retry-After) and
 * operators' holds; routing skips carriers that are down. The implementation is in {@code internal}.
 */
package io.trunkgate.health;
