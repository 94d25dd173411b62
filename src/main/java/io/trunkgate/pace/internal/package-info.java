/**
 * The pacing port's implementation: the Redis slot ledger and its scripts, the breaker that bounds it, the
 * in-memory fallback, {@link io.trunkgate.pace.internal.FallbackSlotReserver} (the one place the Redis-down
 * policy is applied to pacing) and the timer that releases held calls.
 */
package io.trunkgate.pace.internal;
