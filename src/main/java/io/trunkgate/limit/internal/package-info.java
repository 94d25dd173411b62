/**
 * The admission port's implementation: the Redis limiter and its scripts, the breaker that bounds it, the
 * in-memory fallback and {@link io.trunkgate.limit.internal.FallbackAdmission}, the one place the Redis-down
 * policy is applied to admission.
 */
package io.trunkgate.limit.internal;
