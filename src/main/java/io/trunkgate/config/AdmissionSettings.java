package io.trunkgate.config;

import java.time.Duration;

/**
 * The {@code admission} block of gateway.conf.
 *
 * @param rejectCode       SIP status sent when a peer is over its limit (default 503)
 * @param blockedCode      SIP status sent to a manually blocked peer (default 403)
 * @param unknownPeerCode  SIP status for an INVITE from no known peer (default 403; 0 drops it silently)
 * @param redisDown        what to do with a call while Redis cannot be reached
 * @param concurrentCode   SIP status sent when a peer or its group has max-concurrent calls up (default 503)
 * @param leaseTime        how long a call's concurrent-call lease lasts unless its gateway renews it: a crashed
 *                         gateway's calls stop counting this long after its last renewal (default 30 s)
 * @param nonceLifetime    how long a nonce of the gateway's digest challenges is accepted after it was issued
 *                         (default 30 s); a later answer to it is challenged again with {@code stale=true}
 */
public record AdmissionSettings(int rejectCode, int blockedCode, int unknownPeerCode, RedisDownPolicy redisDown,
                                int concurrentCode, Duration leaseTime, Duration nonceLifetime) {

    public static final Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);
    /** Leases are renewed every third of the lease time; below a second that is a Redis call per lease too often. */
    public static final Duration MIN_LEASE_TIME = Duration.ofSeconds(1);
    public static final Duration DEFAULT_NONCE_LIFETIME = Duration.ofSeconds(30);
    public static final Duration MIN_NONCE_LIFETIME = Duration.ofSeconds(1);
    /** Each nonce answered keeps a key in Redis for twice this: an hour bounds that memory. */
    public static final Duration MAX_NONCE_LIFETIME = Duration.ofHours(1);

    public AdmissionSettings(int rejectCode, int blockedCode, int unknownPeerCode, RedisDownPolicy redisDown) {
        this(rejectCode, blockedCode, unknownPeerCode, redisDown, 503, DEFAULT_LEASE_TIME);
    }

    public AdmissionSettings(int rejectCode, int blockedCode, int unknownPeerCode, RedisDownPolicy redisDown,
                             int concurrentCode, Duration leaseTime) {
        this(rejectCode, blockedCode, unknownPeerCode, redisDown, concurrentCode, leaseTime, DEFAULT_NONCE_LIFETIME);
    }
}
