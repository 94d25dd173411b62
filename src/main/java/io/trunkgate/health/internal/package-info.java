/**
 * The carrier health port's implementation: the per-instance book of states and check counts
 * ({@link io.trunkgate.health.internal.HealthBook}), the timer that probes and reads the fleet's states
 * ({@link io.trunkgate.health.internal.HealthMonitor}, one prober per carrier by a lease) and the Redis store.
 */
package io.trunkgate.health.internal;
