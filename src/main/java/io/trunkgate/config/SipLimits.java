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
 */
public record SipLimits(int maxMessageSize, int maxViaHeaders, Duration dialogTimeout, Duration maxCallLength,
        int maxDialogs, Duration linger) {

    /** Kamailio's tm keeps a finished transaction 5 s too ({@code wt_timer}). */
    public static final Duration DEFAULT_LINGER = Duration.ofSeconds(5);
    /** RFC 3261's 64 x T1: no retransmission of a request comes later. */
    public static final Duration MAX_LINGER = Duration.ofSeconds(32);

    public static final SipLimits DEFAULTS =
            new SipLimits(16 * 1024, 16, Duration.ofHours(12), Duration.ZERO, 200_000, DEFAULT_LINGER);
}
