/**
 * The admission port: {@link io.trunkgate.limit.Admission#of} decides each INVITE against every limit of its
 * peer and group, fleet-wide in Redis ({@code lua/admit.lua}), and owns the Redis-down policy (allow, reject,
 * or this instance's share of every limit in memory). Blocks and window usage live here too. The
 * implementation is in {@code internal}, which no other package imports.
 */
package io.trunkgate.limit;
