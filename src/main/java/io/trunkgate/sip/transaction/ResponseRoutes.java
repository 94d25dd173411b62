package io.trunkgate.sip.transaction;

import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.text.ParseException;
import java.util.Iterator;
import java.util.Locale;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;

/**
 * Where responses go (RFC 3261 §18.2, RFC 3581): back to the address a request came from, never to a third one a
 * Via names with {@code maddr}, so that the gateway cannot be made to reflect responses elsewhere.
 */
public final class ResponseRoutes {

    private static final String RPORT = "rport";
    private static final String RECEIVED = "received";

    private ResponseRoutes() {
    }

    /**
     * Marks the top Via of a request received from {@code source} as RFC 3261 §18.2.1 and RFC 3581 ask: {@code received}
     * when its sent-by is not the source's address, or when it asks for {@code rport}, whose value becomes the
     * source's port. What the sender wrote in either is replaced: only the source is believed. Marking a request
     * again changes nothing.
     */
    public static void stamp(Request request, InetSocketAddress source) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        if (via == null) {
            return;
        }
        boolean rport = asksForRport(via);
        try {
            if (rport || !sameAddress(via.getHost(), source.getAddress())) {
                via.setReceived(source.getAddress().getHostAddress());
            } else if (via.getReceived() != null) {
                via.removeParameter(RECEIVED);
            }
            if (rport) {
                via.setParameter(RPORT, Integer.toString(source.getPort()));
            }
        } catch (ParseException e) {
            throw new IllegalArgumentException("Via not marked with " + source + ": " + e.getMessage(), e);
        }
    }

    /**
     * Where responses to {@code request}, received from {@code source}, go (RFC 3261 §18.2.2): over a reliable
     * transport, on the connection it came on while that is open, else to its address at the Via's sent-by port;
     * over UDP to its address, at its port when the Via asked for {@code rport}, else at the sent-by port.
     */
    public static Peer destination(Request request, Peer source) {
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        InetAddress address = source.address().getAddress();
        if (via == null || address == null) {
            return source;
        }
        boolean rport = asksForRport(via);
        int port = rport && !source.reliable() ? source.address().getPort() : sentByPort(via, source.transport());
        return new Peer(source.transport(), new InetSocketAddress(address, port),
                source.reliable() ? source.flow() : null);
    }

    /**
     * Where a response goes that is relayed outside any transaction (a 2xx retransmitted after its transaction
     * ended), by its top Via alone, as marked when its request was received ({@link #stamp}): {@code received}
     * over sent-by's host, {@code rport} over sent-by's port. A host name is left unresolved.
     *
     * @throws IllegalArgumentException when the Via names a transport other than UDP, TCP or TLS
     */
    public static Peer destination(ViaHeader via) {
        Transport transport = Transport.parse(via.getTransport());
        String host = via.getReceived() != null ? via.getReceived() : via.getHost();
        int port = via.getRPort() > 0 ? via.getRPort() : sentByPort(via, transport);
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress literal = literal(bare);
        return Peer.of(transport, literal != null ? new InetSocketAddress(literal, port)
                : InetSocketAddress.createUnresolved(bare, port));
    }

    /** Whether the Via has an {@code rport} parameter, with a value or without (which JAIN-SIP reads as null). */
    private static boolean asksForRport(ViaHeader via) {
        for (Iterator<?> names = via.getParameterNames(); names.hasNext(); ) {
            if (RPORT.equalsIgnoreCase((String) names.next())) {
                return true;
            }
        }
        return false;
    }

    private static int sentByPort(ViaHeader via, Transport transport) {
        return via.getPort() > 0 ? via.getPort() : transport.defaultPort();
    }

    private static boolean sameAddress(String host, InetAddress address) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress named = literal(bare);
        return address.equals(named);
    }

    /** The host as an address when it is an IP literal, else null; never a DNS lookup. */
    private static InetAddress literal(String host) {
        if (!SipUri.isIpv4(host) && host.indexOf(':') < 0) {
            return null;
        }
        try {
            // a valid IPv4 literal, or anything with a colon (an IPv6 literal or an error), is parsed, not resolved
            return InetAddress.getByName(host.toLowerCase(Locale.ROOT));
        } catch (java.net.UnknownHostException notAnAddress) {
            return null;
        }
    }
}
