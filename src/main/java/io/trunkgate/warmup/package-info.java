/**
 * Starts the gateway hot: calls placed through its own UDP listener before it takes traffic
 * ({@link io.trunkgate.warmup.WarmUp}), and the Redis scripts loaded and run once
 * ({@link io.trunkgate.warmup.RedisWarmUp}); docs/warm-up.md.
 */
package io.trunkgate.warmup;
