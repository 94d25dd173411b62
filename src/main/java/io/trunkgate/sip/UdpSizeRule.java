package io.trunkgate.sip;

import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RFC 3261 §18.1.1 for the requests the gateway sends to carriers: a request within 200 bytes of the path MTU
 * ({@code sip.path-mtu}; 1500 unless set, so over 1300 bytes) goes over TCP, to the same address and port, rather
 * than as one UDP datagram, which the network would fragment and real networks lose. Every SIP element takes TCP
 * (RFC 3261 §18), so every carrier is sent it that way except one whose URI says {@code transport=udp}: that carrier
 * takes UDP alone and gets the request over UDP; so does every carrier while the gateway has no TCP listener to send
 * from. Either is logged once per carrier.
 */
final class UdpSizeRule {

    private static final Logger log = LoggerFactory.getLogger(UdpSizeRule.class);
    /** The margin below the path MTU the RFC asks for (room for the headers proxies on the way add). */
    static final int MARGIN = 200;
    /** What forwarding adds to a request beyond its size as received, at most (a Via, two Record-Routes, R-URI). */
    private static final int FORWARDING_GROWTH = 512;

    private final Set<String> warned = ConcurrentHashMap.newKeySet();

    /** Whether {@code request}, received at {@code receivedSize} bytes, may be too big once forwarded: worth a measure. */
    static boolean mayBeTooBig(int receivedSize, int pathMtu) {
        return receivedSize + FORWARDING_GROWTH > pathMtu - MARGIN;
    }

    /** Whether a request of {@code size} bytes, as it goes over UDP, must go over TCP instead with {@code pathMtu}. */
    static boolean tooBig(int size, int pathMtu) {
        return size > pathMtu - MARGIN;
    }

    /** Whether the carrier at {@code uri} takes UDP alone: its URI names {@code transport=udp}. */
    static boolean udpOnly(SipUri uri) {
        return uri.transportGiven() && uri.transport() == Transport.UDP;
    }

    /** Where a request too big for UDP goes instead of {@code udp}: TCP to the same address and port. */
    static CarrierAddress overTcp(CarrierAddress udp) {
        return new CarrierAddress(udp.ip(), udp.port(), Transport.TCP);
    }

    /** The request of {@code size} bytes goes to {@code carrierId} over UDP all the same, for {@code why}: logged once. */
    void keptOnUdp(String carrierId, CarrierAddress to, int size, int pathMtu, String why) {
        if (warned.add(carrierId)) {
            log.warn("carrier {}: a {}-byte request goes to {} over UDP although it exceeds sip.path-mtu {} less {}"
                    + " (RFC 3261 §18.1.1), as {}; it may be fragmented and lost (logged once per carrier)",
                    carrierId, size, to, pathMtu, MARGIN, why);
        }
    }
}
