package io.trunkgate.config;

import java.time.Duration;
import java.util.List;

/**
 * The SIP front end: where it listens and how much load it takes before it sheds.
 *
 * @param listeners            the UDP, TCP and TLS points it listens on
 * @param maxCallsInProgress   INVITEs this instance handles at once (admitting, held or at a carrier);
 *                             beyond it new INVITEs are answered 503 at once
 * @param maxNewCallsPerSecond new INVITEs this instance accepts per second, its capacity; beyond it they are
 *                             answered 503 statelessly, before any transaction exists. 0 = no cap
 * @param overloadDelay        past this standing wait of received messages (in the socket, then for their call's
 *                             loop) new INVITEs are answered 503 statelessly; zero = off
 * @param limits               message sizes and dialog state the front end accepts
 * @param tcp                  timeouts and caps of the TCP connections peers open
 * @param drainTimeout         on shutdown, how long calls in progress may go on before they are ended
 * @param warmUp               the calls placed through the gateway's own listener before it takes traffic
 * @param tls                  the TLS handshake timeout ({@code tcp}'s caps and timeouts apply to TLS connections too)
 */
public record SipSettings(List<SipListener> listeners, int maxCallsInProgress, double maxNewCallsPerSecond,
                          Duration overloadDelay, SipLimits limits, TcpLimits tcp, Duration drainTimeout,
                          WarmUpSettings warmUp, TlsSettings tls) {
    public SipSettings {
        listeners = List.copyOf(listeners);
    }

    /** Settings with the default TLS handshake timeout. */
    public SipSettings(List<SipListener> listeners, int maxCallsInProgress, double maxNewCallsPerSecond,
                       Duration overloadDelay, SipLimits limits, TcpLimits tcp, Duration drainTimeout,
                       WarmUpSettings warmUp) {
        this(listeners, maxCallsInProgress, maxNewCallsPerSecond, overloadDelay, limits, tcp, drainTimeout, warmUp,
                TlsSettings.DEFAULTS);
    }
}
