package io.trunkgate.config;

import java.time.Duration;

/**
 * How long SIP TCP connections may stay open without doing their job, and how many peers may open.
 *
 * @param idleTimeout             a connection on which nothing arrived for this long is closed; peers reconnect
 *                                for their next request
 * @param messageTimeout          a message must arrive whole within this of its first byte, or its connection is
 *                                closed: a peer that sends a byte now and then is not idle, but it is not sending SIP
 * @param maxConnections          connections peers may have open to the gateway at once; one more is closed at once
 * @param maxConnectionsPerSource connections one IP address may have open to the gateway at once
 */
public record TcpLimits(Duration idleTimeout, Duration messageTimeout, int maxConnections,
                        int maxConnectionsPerSource) {

    public static final TcpLimits DEFAULTS = new TcpLimits(Duration.ofSeconds(120), Duration.ofSeconds(10), 1000, 32);
}
