package io.trunkgate.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a carrier's SIP URI the gateway needs to reach it: "sip:host[:port][;transport=udp|tcp|tls]" or
 * "sips:host[:port]". A {@code sips:} URI is reached over TLS (RFC 3261 §19.1.2, RFC 5630: "transport=tcp" in a
 * sips URI also means TLS over TCP; "transport=udp" is refused).
 *
 * @param port           the port written, else 5061 over TLS and 5060 otherwise
 * @param transport      the transport written, TLS for a sips URI, else UDP
 * @param portGiven      whether the URI names a port: then a host name is looked up without SRV (RFC 3263 §4.2)
 * @param transportGiven whether the URI names a transport: then a host name is looked up without NAPTR (§4.1)
 */
public record SipUri(String text, String host, int port, Transport transport, boolean portGiven,
                     boolean transportGiven) {

    private static final Pattern URI = Pattern.compile(
            "(?i)(sips?):(?:[^@;]+@)?(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+)(?::(\\d{1,5}))?((?:;[^;=]+(?:=[^;]*)?)*)");

    public static SipUri parse(String text) {
        Matcher m = URI.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a SIP URI (sip:host[:port][;transport=udp|tcp|tls] or"
                    + " sips:host[:port]): \"" + text + "\"");
        }
        boolean secure = m.group(1).equalsIgnoreCase("sips");
        Transport transport = secure ? Transport.TLS : Transport.UDP;
        boolean transportGiven = false;
        for (String param : m.group(4).split(";")) {
            if (param.toLowerCase(Locale.ROOT).startsWith("transport=")) {
                Transport written = Transport.parse(param.substring("transport=".length()));
                if (secure && written == Transport.UDP) {
                    throw new IllegalArgumentException("a sips URI is reached over TLS, not udp: \"" + text + "\"");
                }
                transport = secure ? Transport.TLS : written;
                transportGiven = true;
            }
        }
        int port = transport.defaultPort();
        if (m.group(3) != null) {
            port = Integer.parseInt(m.group(3));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in \"" + text + "\"");
            }
        }
        return new SipUri(text.trim(), m.group(2), port, transport, m.group(3) != null, transportGiven);
    }

    /** Whether the URI is a {@code sips:} URI: reached over TLS, whatever its transport parameter says. */
    public boolean secure() {
        return text.regionMatches(true, 0, "sips:", 0, 5);
    }

    /** Whether the host is an IP address (IPv4, or IPv6 in brackets) rather than a name to look up in DNS. */
    public boolean hostIsAddress() {
        return host.startsWith("[") || isIpv4(host);
    }

    /**
     * Whether {@code host} is a valid dotted IPv4 address (so naming it needs no DNS): four decimal numbers 0-255
     * without leading zeros. "999.1.1.1" is a (bad) host name, never handed to InetAddress as an address.
     * A loop, not a regular expression: it runs several times for every message of a call.
     */
    public static boolean isIpv4(String host) {
        int octets = 0;
        int i = 0;
        int n = host.length();
        while (i < n) {
            int start = i;
            int value = 0;
            while (i < n && i - start < 4) {
                char c = host.charAt(i);
                if (c < '0' || c > '9') {
                    break;
                }
                value = value * 10 + (c - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || value > 255 || (digits > 1 && host.charAt(start) == '0')) {
                return false;
            }
            octets++;
            if (i == n) {
                return octets == 4;
            }
            if (host.charAt(i) != '.' || octets == 4) {
                return false;
            }
            i++;
        }
        return false;
    }
}
