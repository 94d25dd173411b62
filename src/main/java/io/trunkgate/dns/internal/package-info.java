/**
 * The carrier resolver's implementation: RFC 3263 lookups on dnsjava
 * ({@link io.trunkgate.dns.internal.Rfc3263Lookup}) and the TTL cache that keeps the last good answer through
 * failed lookups ({@link io.trunkgate.dns.internal.CachingResolver}).
 */
package io.trunkgate.dns.internal;
