package io.trunkgate.sip;

import io.trunkgate.config.SipUri;
import java.net.InetAddress;
import java.util.Locale;
import javax.sip.address.SipURI;
import javax.sip.address.URI;
import javax.sip.header.ViaHeader;

/**
 * A place a request or response is sent to, host and port, with the host in one canonical spelling so that
 * {@code [::1]}, {@code 0:0:0:0:0:0:0:1} and {@code ::1} compare equal (RFC 5118) and names compare without
 * case. A host name is compared as written: resolving it here would put DNS on the call path.
 */
record Hop(String host, int port) {

    static Hop of(String host, int port) {
        return new Hop(canonicalHost(host), port);
    }

    static Hop of(InetAddress address, int port) {
        return new Hop(address.getHostAddress(), port);
    }

    /** Where a URI sends a request: its host and port, 5060 (5061 for sips) when absent; null if not SIP. */
    static Hop of(URI uri) {
        if (!(uri instanceof SipURI sip)) {
            return null;
        }
        int port = sip.getPort() > 0 ? sip.getPort() : sip.isSecure() ? 5061 : 5060;
        return of(sip.getHost(), port);
    }

    /** The sent-by of a Via: where its sender says it takes responses. */
    static Hop sentBy(ViaHeader via) {
        return of(via.getHost(), via.getPort() > 0 ? via.getPort() : 5060);
    }

    /** The host as an InetAddress when it is an IP literal (no DNS), else null. */
    InetAddress address() {
        return isLiteral(host) ? literal(host) : null;
    }

    static String canonicalHost(String host) {
        if (SipUri.isIpv4(host)) {
            // a valid dotted IPv4 address without leading zeros is already written as InetAddress writes it
            return host;
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (isLiteral(bare)) {
            InetAddress address = literal(bare);
            return address == null ? bare.toLowerCase(Locale.ROOT) : address.getHostAddress();
        }
        return bare.toLowerCase(Locale.ROOT);
    }

    private static boolean isLiteral(String host) {
        return host.indexOf(':') >= 0 || SipUri.isIpv4(host);
    }

    /** For a literal (a valid IPv4 one, or anything with a colon) InetAddress.getByName does no DNS lookup. */
    private static InetAddress literal(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (Exception notAnAddress) {
            return null;
        }
    }
}
