package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.SipUri;
import io.trunkgate.config.Transport;
import io.trunkgate.dns.CarrierAddress;
import io.trunkgate.testing.LogCapture;
import org.junit.jupiter.api.Test;

/** RFC 3261 §18.1.1's bound, which carriers take UDP only, and its warning: once per carrier. */
class UdpSizeRuleTest {

    @Test
    void aRequestWithin200BytesOfThePathMtuIsTooBigForUdp() {
        assertFalse(UdpSizeRule.tooBig(1300, 1500), "1300 bytes with an unknown (Ethernet) MTU still go over UDP");
        assertTrue(UdpSizeRule.tooBig(1301, 1500));
        assertFalse(UdpSizeRule.tooBig(8800, 9000));
        assertTrue(UdpSizeRule.tooBig(8801, 9000));
    }

    @Test
    void onlyACarrierWhoseUriSaysUdpTakesUdpAlone() {
        assertTrue(UdpSizeRule.udpOnly(SipUri.parse("sip:192.0.2.1;transport=udp")));
        assertFalse(UdpSizeRule.udpOnly(SipUri.parse("sip:192.0.2.1")), "no transport: it takes TCP too (RFC 3261 §18)");
        assertFalse(UdpSizeRule.udpOnly(SipUri.parse("sip:gw.example.com:5060")));
        assertFalse(UdpSizeRule.udpOnly(SipUri.parse("sip:192.0.2.1;transport=tcp")));
    }

    @Test
    void theRequestGoesOverTcpToTheSameAddressAndPort() {
        assertEquals(new CarrierAddress("192.0.2.1", 5070, Transport.TCP),
                UdpSizeRule.overTcp(new CarrierAddress("192.0.2.1", 5070, Transport.UDP)));
    }

    @Test
    void keepingABigRequestOnUdpIsLoggedOncePerCarrier() {
        UdpSizeRule rule = new UdpSizeRule();
        CarrierAddress to = new CarrierAddress("192.0.2.1", 5060, Transport.UDP);
        try (LogCapture log = LogCapture.of(UdpSizeRule.class)) {
            rule.keptOnUdp("a", to, 4700, 1500, "its URI says transport=udp");
            rule.keptOnUdp("a", to, 4800, 1500, "its URI says transport=udp");
            rule.keptOnUdp("b", to, 4700, 1500, "its URI says transport=udp");
            assertEquals(2, log.events().size(), log.events().toString());
        }
    }
}
