package io.trunkgate.dns;

import io.trunkgate.config.Transport;

/**
 * One place a carrier is reached at: an IP address (as {@link java.net.InetAddress#getHostAddress()} writes it),
 * a port and a transport.
 */
public record CarrierAddress(String ip, int port, Transport transport) {

    /** "192.0.2.10:5060/udp", "[2001:db8::1]:5060/tcp": how logs, metrics and the admin API name it. */
    public String label() {
        return (ip.indexOf(':') >= 0 ? "[" + ip + "]" : ip) + ":" + port + "/" + transport.sipName();
    }

    @Override
    public String toString() {
        return label();
    }
}
