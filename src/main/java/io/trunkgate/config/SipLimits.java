package io.trunkgate.config;

import java.time.Duration;

/**
 * What the SIP front end accepts and remembers, so that no request can make it relay more than it admitted
 * or hold more state than it was sized for.
 *
 * @param maxMessageSize bytes a request may have (headers and body); larger ones are answered 513
 * @param maxViaHeaders  Via headers a request may carry; more are answered 483 (a loop or an attack)
 * @param dialogTimeout  how long a dialog the gateway admitted is remembered after the last request relayed
 *                       in it, when no BYE ends it and no session timer was negotiated
 * @param maxCallLength  how long after its INVITE a dialog is remembered at most, however often it is refreshed;
 *                       {@link Duration#ZERO} for no such bound
 * @param maxDialogs     dialogs remembered at once; beyond it new INVITEs are answered 503
 * @param linger         how long a finished transaction is remembered to answer retransmissions of its request
 *                       (RFC 3261's Timer J, 32 s over UDP, at most this), and a dialog a BYE ended for a late ACK
 * @param pathMtu        the path MTU towards carriers: a request to a carrier within 200 bytes of it goes over TCP,
 *                       not UDP (RFC 3261 §18.1.1)
 */
public record SipLimits(int maxMessageSize, int maxViaHeaders, Duration dialogTimeout, Duration maxCallLength,
        int maxDialogs, Duration linger, int pathMtu) {

    /** Ethernet's MTU: requests to carriers over 1300 bytes go over TCP, as RFC 3261 says for an unknown MTU. */
    public static final int DEFAULT_PATH_MTU = 1500;
    /** The smallest path MTU IPv4 guarantees (RFC 791); below it nothing could go over UDP. */
    public static final int MIN_PATH_MTU = 576;

    /** Kamailio's tm keeps a finished transaction 5 s too ({@code wt_timer}). */
    public static final Duration DEFAULT_LINGER = Duration.ofSeconds(5);
    /** RFC 3261's 64 x T1: no retransmission of a request comes later. */
    public static final Duration MAX_LINGER = Duration.ofSeconds(32);

    public static final SipLimits DEFAULTS =
            new SipLimits(16 * 1024, 16, Duration.ofHours(12), Duration.ZERO, 200_000, DEFAULT_LINGER, DEFAULT_PATH_MTU);

    /** Limits with the default path MTU. */
    public SipLimits(int maxMessageSize, int maxViaHeaders, Duration dialogTimeout, Duration maxCallLength,
                     int maxDialogs, Duration linger) {
        this(maxMessageSize, maxViaHeaders, dialogTimeout, maxCallLength, maxDialogs, linger, DEFAULT_PATH_MTU);
    }
}
