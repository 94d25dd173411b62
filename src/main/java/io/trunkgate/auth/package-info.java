/**
 * Digest authentication of peers (RFC 3261 §22, RFC 7616, RFC 8760): the challenges the gateway sends an INVITE of a
 * peer with {@code match.credentials}, the check of the credentials that answer them, and each answer's single use
 * fleet-wide. {@link io.trunkgate.auth.DigestAuthentication#open} builds it. Nonces keep no state: each carries the
 * time it was issued under an HMAC whose key the fleet shares in Redis. Each (nonce, nonce-count) answered is kept in
 * Redis until the nonce has expired, so a replay is refused at any gateway; while Redis is out of reach, each gateway
 * keeps the ones it saw, bounded, in memory. The implementation is in {@code internal}, which no other package
 * imports; nothing here knows SIP messages.
 */
package io.trunkgate.auth;
