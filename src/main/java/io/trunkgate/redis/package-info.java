/**
 * Redis itself: the client for each mode, the embedded redis-server, Lua scripts, and
 * {@link io.trunkgate.redis.RedisBreaker} (timeout and circuit breaker on every call). Takes plain values; the
 * bottom of the layers.
 */
package io.trunkgate.redis;
