/**
 * {@code trunkgate what-if}: recorded calls (docs/records.md) replayed through a configuration, by the gateway's own
 * admission, lease and pacing scripts on a scratch redis-server, on a clock the replay drives, and the decisions
 * compared with what the records say happened.
 */
package io.trunkgate.whatif;
