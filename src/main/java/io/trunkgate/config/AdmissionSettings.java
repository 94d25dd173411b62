package io.trunkgate.config;

/**
 * The {@code admission} block of gateway.conf.
 *
 * @param rejectCode       SIP status sent when a peer is over its limit (default 503)
 * @param blockedCode      SIP status sent to a manually blocked peer (default 403)
 * @param unknownPeerCode  SIP status for an INVITE from no known peer (default 403; 0 drops it silently)
 * @param redisDown        what to do with a call while Redis cannot be reached
 */
public record AdmissionSettings(int rejectCode, int blockedCode, int unknownPeerCode, RedisDownPolicy redisDown) {
}
