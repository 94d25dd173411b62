package io.trunkgate.sip.transaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Transport;
import java.net.InetSocketAddress;
import javax.sip.SipFactory;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;

/** Where responses go (RFC 3261 §18.2.1, §18.2.2; RFC 3581). */
class ResponseRoutesTest {

    private static final InetSocketAddress NAT = new InetSocketAddress("203.0.113.9", 61000);

    private static Request from(String via) {
        return SipText.request("INVITE", "sip:+15551234@192.0.2.5", via, 1, null);
    }

    private static ViaHeader via(Request request) {
        return (ViaHeader) request.getHeader(ViaHeader.NAME);
    }

    @Test
    void aSentByOtherThanTheSourceGetsReceived() {
        Request request = from("SIP/2.0/UDP 10.0.0.8:5060;branch=z9hG4bK-1");
        ResponseRoutes.stamp(request, NAT);

        assertEquals("203.0.113.9", via(request).getReceived());
        assertEquals(-1, via(request).getRPort());
    }

    @Test
    void aSentByThatIsTheSourceIsLeftAsItIs() {
        Request request = from("SIP/2.0/UDP 203.0.113.9:5060;branch=z9hG4bK-1");
        ResponseRoutes.stamp(request, NAT);

        assertNull(via(request).getReceived());
    }

    @Test
    void anRportWithoutValueGetsTheSourcePortAndReceivedEvenFromTheSentByAddress() {
        Request request = from("SIP/2.0/UDP 203.0.113.9:5060;rport;branch=z9hG4bK-1");
        ResponseRoutes.stamp(request, NAT);

        assertEquals("203.0.113.9", via(request).getReceived());
        assertEquals(61000, via(request).getRPort());
    }

    @Test
    void receivedAndRportTheSenderWroteAreReplacedByTheSourceAndMarkingAgainChangesNothing() {
        Request lying = from("SIP/2.0/UDP 10.0.0.8:5060;received=198.51.100.66;rport=9;branch=z9hG4bK-1");
        Request honest = from("SIP/2.0/UDP 203.0.113.9:5060;received=198.51.100.66;branch=z9hG4bK-1");
        ResponseRoutes.stamp(lying, NAT);
        ResponseRoutes.stamp(lying, NAT);
        ResponseRoutes.stamp(honest, NAT);

        assertEquals("203.0.113.9", via(lying).getReceived());
        assertEquals(61000, via(lying).getRPort());
        assertNull(via(honest).getReceived());
    }

    @Test
    void anIpv6SentByWrittenOtherwiseIsTheSameAddress() {
        Request request = from("SIP/2.0/UDP [2001:db8:0:0::1]:5060;branch=z9hG4bK-1");
        ResponseRoutes.stamp(request, new InetSocketAddress("2001:db8::1", 5060));

        assertNull(via(request).getReceived());
    }

    @Test
    void aHostNameSentByGetsReceivedWithoutAnyLookup() {
        Request request = from("SIP/2.0/UDP pbx.example.invalid:5060;branch=z9hG4bK-1");
        ResponseRoutes.stamp(request, NAT);

        assertEquals("203.0.113.9", via(request).getReceived());
    }

    @Test
    void overUdpResponsesGoToTheSourceAddressAtTheSentByPortOr5060() {
        Peer source = Peer.of(Transport.UDP, NAT);

        assertEquals(Peer.of(Transport.UDP, new InetSocketAddress("203.0.113.9", 5080)),
                ResponseRoutes.destination(from("SIP/2.0/UDP 10.0.0.8:5080;branch=z9hG4bK-1"), source));
        assertEquals(Peer.of(Transport.UDP, new InetSocketAddress("203.0.113.9", 5060)),
                ResponseRoutes.destination(from("SIP/2.0/UDP 10.0.0.8;branch=z9hG4bK-1"), source));
    }

    @Test
    void overUdpWithRportResponsesGoToTheSourcePort() {
        Peer source = Peer.of(Transport.UDP, NAT);

        assertEquals(source, ResponseRoutes.destination(from("SIP/2.0/UDP 10.0.0.8:5060;rport;branch=z9hG4bK-1"),
                source));
    }

    @Test
    void overTcpResponsesGoOnTheConnectionElseToTheSourceAtTheSentByPort() {
        Peer source = new Peer(Transport.TCP, NAT, "flow");
        Peer tls = new Peer(Transport.TLS, NAT, "tls-flow");

        assertEquals(new Peer(Transport.TCP, new InetSocketAddress("203.0.113.9", 5060), "flow"),
                ResponseRoutes.destination(from("SIP/2.0/TCP 10.0.0.8:5060;rport;branch=z9hG4bK-1"), source));
        assertEquals(new Peer(Transport.TLS, new InetSocketAddress("203.0.113.9", 5061), "tls-flow"),
                ResponseRoutes.destination(from("SIP/2.0/TLS 10.0.0.8;branch=z9hG4bK-1"), tls));
    }

    @Test
    void aViaAloneSendsToReceivedAndRportOverSentBy() throws Exception {
        ViaHeader via = header("SIP/2.0/UDP 10.0.0.8:5070;received=203.0.113.9;rport=61000;branch=z9hG4bK-1");

        assertEquals(Peer.of(Transport.UDP, NAT), ResponseRoutes.destination(via));
    }

    @Test
    void aViaAloneWithoutMarksSendsToSentByAndLeavesANameUnresolved() throws Exception {
        assertEquals(Peer.of(Transport.TLS, new InetSocketAddress("198.51.100.4", 5061)),
                ResponseRoutes.destination(header("SIP/2.0/TLS 198.51.100.4;branch=z9hG4bK-1")));
        assertEquals(Peer.of(Transport.TCP, new InetSocketAddress("2001:db8::1", 5062)),
                ResponseRoutes.destination(header("SIP/2.0/TCP [2001:db8::1]:5062;branch=z9hG4bK-1")));
        Peer named = ResponseRoutes.destination(header("SIP/2.0/UDP pbx.example.invalid;branch=z9hG4bK-1"));
        assertTrue(named.address().isUnresolved());
        assertEquals("pbx.example.invalid:5060", named.address().getHostString() + ":" + named.address().getPort());
    }

    private static ViaHeader header(String value) throws Exception {
        SipFactory factory = SipFactory.getInstance();
        factory.setPathName("gov.nist");
        return (ViaHeader) factory.createHeaderFactory().createHeader(ViaHeader.NAME, value);
    }
}
