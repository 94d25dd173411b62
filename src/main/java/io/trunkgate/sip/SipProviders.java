package io.trunkgate.sip;

import java.util.List;
import javax.sip.ListeningPoint;
import javax.sip.SipProvider;

/** The gateway's SIP providers, one per listening host:port, and which one sends to a given host. */
public record SipProviders(List<SipProvider> all) {

    public SipProviders {
        all = List.copyOf(all);
    }

    /** Whether a provider listens on {@code transport} ("UDP", "TCP" or "TLS"), so the gateway can send over it. */
    public boolean has(String transport) {
        return all.stream().anyMatch(provider -> provider.getListeningPoint(transport) != null);
    }

    /**
     * The provider that can send over {@code transport} ("UDP" or "TCP") to {@code host}: one listening on the
     * host's address family (IPv6 for an IPv6 literal), else any with the transport.
     */
    public SipProvider forTransport(String transport, String host) {
        boolean ipv6 = host != null && host.indexOf(':') >= 0;
        SipProvider any = null;
        for (SipProvider provider : all) {
            ListeningPoint point = provider.getListeningPoint(transport);
            if (point != null) {
                if ((point.getIPAddress().indexOf(':') >= 0) == ipv6) {
                    return provider;
                }
                any = any == null ? provider : any;
            }
        }
        if (any == null) {
            throw new IllegalStateException("no " + transport + " listener configured in sip.listeners");
        }
        return any;
    }
}
