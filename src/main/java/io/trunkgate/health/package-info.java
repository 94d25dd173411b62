/**
 * The carrier health port: {@link io.trunkgate.health.FleetHealth#open} keeps which carriers are up, shared by
 * the fleet in Redis, from OPTIONS probes, what carriers did with calls (timeouts, 503, Retry-After, calls failed in
 * a row: {@code call-failures}) and operators' holds; routing skips carriers that are down. A carrier named by a
 * host name is checked address by address, and is down when all its addresses are. The implementation is in
 * {@code internal}.
 */
package io.trunkgate.health;
