/**
 * The pacing port: {@link io.trunkgate.pace.Pacing#of} holds each call until its carrier's next slot, reserved
 * fleet-wide in Redis ({@code lua/pace.lua}), and owns the Redis-down policy for pacing (send at once, fail the
 * attempt, or this instance's share of the carrier's rate in memory). The implementation is in {@code internal}.
 */
package io.trunkgate.pace;
