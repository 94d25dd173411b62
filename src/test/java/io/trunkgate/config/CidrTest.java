package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CidrTest {

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal);
    }

    @Test
    void networkContainsItsAddressesOnly() throws Exception {
        Cidr net = Cidr.parse("198.51.100.0/24");

        assertTrue(net.contains(ip("198.51.100.0")));
        assertTrue(net.contains(ip("198.51.100.255")));
        assertFalse(net.contains(ip("198.51.101.0")));
        assertFalse(net.contains(ip("2001:db8::1")), "an IPv6 address is never in an IPv4 network");
        assertEquals(24, net.prefixLength());
    }

    @Test
    void bareAddressIsAHostNetwork() throws Exception {
        Cidr host = Cidr.parse("203.0.113.7");

        assertEquals(32, host.prefixLength());
        assertTrue(host.contains(ip("203.0.113.7")));
        assertFalse(host.contains(ip("203.0.113.8")));
        assertEquals(128, Cidr.parse("2001:db8::1").prefixLength());
    }

    @Test
    void ipv6Networks() throws Exception {
        Cidr net = Cidr.parse("2001:db8:100::/48");

        assertTrue(net.contains(ip("2001:db8:100:ffff::1")));
        assertFalse(net.contains(ip("2001:db8:101::1")));
        assertFalse(net.contains(ip("198.51.100.1")));
    }

    @Test
    void zeroPrefixContainsEveryAddressOfItsFamily() throws Exception {
        assertTrue(Cidr.parse("0.0.0.0/0").contains(ip("192.0.2.200")));
        assertTrue(Cidr.parse("::/0").contains(ip("2001:db8::7")));
    }

    @Test
    void hostBitsAreIgnoredSoTheSameNetworkIsEqual() {
        assertEquals(Cidr.parse("198.51.100.0/24"), Cidr.parse("198.51.100.77/24"));
        assertEquals(Cidr.parse("198.51.100.0/24").hashCode(), Cidr.parse("198.51.100.77/24").hashCode());
        assertFalse(Cidr.parse("198.51.100.0/24").equals(Cidr.parse("198.51.100.0/25")));
    }

    @Test
    void mostSpecificNetworkHasTheLongestPrefix() throws Exception {
        InetAddress caller = ip("198.51.100.7");
        List<Cidr> candidates = List.of(Cidr.parse("0.0.0.0/0"), Cidr.parse("198.51.100.7"),
                Cidr.parse("198.51.100.0/24"), Cidr.parse("198.51.0.0/16"));

        Cidr mostSpecific = candidates.stream().filter(c -> c.contains(caller))
                .max(Comparator.comparingInt(Cidr::prefixLength)).orElseThrow();

        assertEquals(Cidr.parse("198.51.100.7/32"), mostSpecific);
        assertEquals(4, candidates.stream().filter(c -> c.contains(caller)).count());
    }

    @ParameterizedTest
    @ValueSource(strings = {"gw.example", "198.51.100.0/33", "2001:db8::/129", "198.51.100.0/", "1.2.3", "", "1.2.3.4/x"})
    void rejectsWhatIsNotAnAddressOrNetwork(String text) {
        assertThrows(IllegalArgumentException.class, () -> Cidr.parse(text));
    }
}
