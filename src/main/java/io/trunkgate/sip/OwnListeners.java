package io.trunkgate.sip;

import io.trunkgate.config.SipListener;
import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * The gateway's own SIP listeners (sip.listeners), as the messages it sends name them: which one a request to a host
 * leaves from (its Via, its Record-Route), and whether an address is the gateway's own.
 */
public record OwnListeners(List<SipListener> all) {

    public OwnListeners {
        all = List.copyOf(all);
    }

    /** Whether the gateway listens on {@code transport}, so it can send over it. */
    public boolean has(Transport transport) {
        return all.stream().anyMatch(listener -> listener.transport() == transport);
    }

    /**
     * The listener that sends over {@code transport} to {@code host}: one on the host's address family (IPv6 for an
     * IPv6 literal), else any with the transport.
     */
    public SipListener forTransport(Transport transport, String host) {
        boolean ipv6 = host != null && host.indexOf(':') >= 0;
        SipListener any = null;
        for (SipListener listener : all) {
            if (listener.transport() == transport) {
                if ((listener.host().indexOf(':') >= 0) == ipv6) {
                    return listener;
                }
                any = any == null ? listener : any;
            }
        }
        if (any == null) {
            throw new IllegalStateException("no " + transport + " listener to send from; add one to sip.listeners");
        }
        return any;
    }

    /** The listener a message came in on over {@code transport} at {@code local}; else the one that would send back. */
    public SipListener at(Transport transport, InetSocketAddress local) {
        for (SipListener listener : all) {
            if (listener.transport() == transport && listener.port() == local.getPort()
                    && (local.getAddress().isAnyLocalAddress()
                    || Hop.canonicalHost(listener.host()).equals(local.getAddress().getHostAddress())
                    || isAnyLocal(listener.host()))) {
                return listener;
            }
        }
        return forTransport(transport, local.getAddress().getHostAddress());
    }

    /** Whether {@code hop} is one of the listeners' addresses (hosts compared canonically, RFC 5118). */
    public boolean isOwn(Hop hop) {
        for (SipListener listener : all) {
            if (listener.port() == hop.port() && Hop.canonicalHost(listener.host()).equals(hop.host())) {
                return true;
            }
        }
        return false;
    }

    private static boolean isAnyLocal(String host) {
        return host.equals("0.0.0.0") || Hop.canonicalHost(host).equals("0:0:0:0:0:0:0:0");
    }
}
