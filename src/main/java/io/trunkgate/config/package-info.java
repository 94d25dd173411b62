/**
 * The configuration as immutable records, read from gateway.conf and the peer, group, carrier and route files,
 * with every error reported as file:line:key. Imports nothing of the gateway but {@code redis}'s plain values.
 */
package io.trunkgate.config;
