package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SipUriTest {

    @Test
    void fullUri() {
        SipUri uri = SipUri.parse("sip:gw1.carrier-a.example:5070;transport=tcp");

        assertEquals("gw1.carrier-a.example", uri.host());
        assertEquals(5070, uri.port());
        assertEquals(Transport.TCP, uri.transport());
        assertEquals("sip:gw1.carrier-a.example:5070;transport=tcp", uri.text());
    }

    @Test
    void defaultsArePort5060AndUdp() {
        SipUri uri = SipUri.parse("sip:sbc.carrier-c.example");

        assertEquals(5060, uri.port());
        assertEquals(Transport.UDP, uri.transport());
    }

    @Test
    void userPartAndOtherParametersAreAccepted() {
        SipUri uri = SipUri.parse("sip:trunk@192.0.2.10;lr;transport=UDP");

        assertEquals("192.0.2.10", uri.host());
        assertEquals(Transport.UDP, uri.transport());
    }

    @Test
    void whatTheUriWritesDecidesHowItsHostIsResolved() {
        SipUri bare = SipUri.parse("sip:carrier.example");
        assertFalse(bare.portGiven() || bare.transportGiven() || bare.hostIsAddress(), "NAPTR, then SRV");
        assertTrue(SipUri.parse("sip:carrier.example;transport=tcp").transportGiven());
        assertTrue(SipUri.parse("sip:carrier.example:5060").portGiven(), "a port, even 5060, skips SRV");
        assertTrue(SipUri.parse("sip:192.0.2.10").hostIsAddress());
        assertTrue(SipUri.parse("sip:[2001:db8::10]:5080").hostIsAddress());
        assertFalse(SipUri.parse("sip:999.1.1.1").hostIsAddress(), "not an IPv4 address: a name to look up");
    }

    @Test
    void ipv6Host() {
        SipUri uri = SipUri.parse("sip:[2001:db8::10]:5080");

        assertEquals("[2001:db8::10]", uri.host());
        assertEquals(5080, uri.port());
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://gw.example", "gw.example:5060", "sip:gw.example:70000", "sip:gw.example:0",
            "sip:gw.example;transport=sctp", "sip:", "sips gw.example"})
    void rejectsBadUris(String text) {
        assertThrows(IllegalArgumentException.class, () -> SipUri.parse(text));
    }
}
