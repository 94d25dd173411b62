package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.regex.Pattern;
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
    void sipsUrisAreReachedOverTlsAtPort5061() {
        SipUri sips = SipUri.parse("sips:carrier.example");
        assertEquals(Transport.TLS, sips.transport());
        assertEquals(5061, sips.port());
        assertTrue(sips.secure());
        assertFalse(sips.portGiven() || sips.transportGiven());

        SipUri overTcp = SipUri.parse("SIPS:carrier.example:5071;transport=tcp");
        assertEquals(Transport.TLS, overTcp.transport(), "RFC 5630: sips with transport=tcp is TLS over TCP");
        assertEquals(5071, overTcp.port());
        assertTrue(overTcp.transportGiven());

        IllegalArgumentException udp = assertThrows(IllegalArgumentException.class,
                () -> SipUri.parse("sips:carrier.example;transport=udp"));
        assertEquals("a sips URI is reached over TLS, not udp: \"sips:carrier.example;transport=udp\"",
                udp.getMessage());
    }

    @Test
    void transportTlsDefaultsToPort5061() {
        SipUri tls = SipUri.parse("sip:carrier.example;transport=tls");

        assertEquals(Transport.TLS, tls.transport());
        assertEquals(5061, tls.port());
        assertFalse(tls.secure());
        assertEquals(5062, SipUri.parse("sip:carrier.example:5062;transport=TLS").port());
        assertEquals("transport must be udp, tcp or tls, not \"sctp\"",
                assertThrows(IllegalArgumentException.class,
                        () -> SipUri.parse("sip:carrier.example;transport=sctp")).getMessage());
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

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "192.0.2.10", "10.0.0.1", "255.255.255.255", "99.100.199.249"})
    void dottedQuadsAreIpv4Addresses(String host) {
        assertTrue(SipUri.isIpv4(host));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "1.2.3", "1.2.3.4.", "1.2.3.4.5", "256.1.1.1", "1.2.3.260", "01.2.3.4", "1.2.3.04",
            "1.2.3.00", "1..2.3", ".1.2.3", "1.2.3.4a", "a.b.c.d", "1234.1.1.1", "0999.1.1.1", "1.2.3.-4", "[::1]",
            "carrier.example", "1.2.3.4 "})
    void anythingElseIsAHostName(String host) {
        assertFalse(SipUri.isIpv4(host));
    }

    /** Every string of up to eight characters over digits and dots, against the address grammar as a regex. */
    @Test
    void agreesWithTheGrammarOnEveryShortString() {
        Pattern octet = Pattern.compile("25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d");
        Pattern grammar = Pattern.compile("((" + octet + ")\\.){3}(" + octet + ")");
        char[] alphabet = {'0', '1', '2', '5', '6', '9', '.'};
        StringBuilder text = new StringBuilder();
        int[] digits = new int[8];
        for (int length = 1; length <= 8; length++) {
            Arrays.fill(digits, 0);
            while (true) {
                text.setLength(0);
                for (int i = 0; i < length; i++) {
                    text.append(alphabet[digits[i]]);
                }
                String host = text.toString();
                assertEquals(grammar.matcher(host).matches(), SipUri.isIpv4(host), host);
                int i = 0;
                while (i < length && ++digits[i] == alphabet.length) {
                    digits[i++] = 0;
                }
                if (i == length) {
                    break;
                }
            }
        }
    }
}
