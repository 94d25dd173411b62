package io.trunkgate.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/** An IPv4 or IPv6 network in CIDR notation; a bare address is a host network (/32 or /128). */
public final class Cidr {

    private static final Pattern LITERAL = Pattern.compile("[0-9a-fA-F:.]+");

    private final byte[] network;
    private final int prefixLength;
    private final String text;

    private Cidr(byte[] network, int prefixLength, String text) {
        this.network = network;
        this.prefixLength = prefixLength;
        this.text = text;
    }

    /** Parses "203.0.113.7", "198.51.100.0/24" or "2001:db8::/32"; host names are refused. */
    public static Cidr parse(String text) {
        String trimmed = text.trim();
        int slash = trimmed.indexOf('/');
        String addressPart = slash < 0 ? trimmed : trimmed.substring(0, slash);
        if (addressPart.isEmpty() || !LITERAL.matcher(addressPart).matches()
                || (addressPart.indexOf(':') < 0 && addressPart.chars().filter(c -> c == '.').count() != 3)) {
            throw new IllegalArgumentException("not an IP address or CIDR: \"" + text + "\"");
        }
        byte[] address;
        try {
            address = InetAddress.getByName(addressPart).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an IP address or CIDR: \"" + text + "\"");
        }
        int bits = address.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(trimmed.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bad prefix length in \"" + text + "\"");
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("prefix length must be 0.." + bits + " in \"" + text + "\"");
            }
        }
        return new Cidr(mask(address, prefix), prefix, trimmed);
    }

    public boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        byte[] masked = mask(candidate, prefixLength);
        return java.util.Arrays.equals(masked, network);
    }

    public int prefixLength() {
        return prefixLength;
    }

    /**
     * Whether {@code networks} together hold every IPv4 address or every IPv6 address: {@code 0.0.0.0/0},
     * {@code ::/0}, or networks that add up to one of them (two /1 halves).
     */
    public static boolean coverAFamily(Collection<Cidr> networks) {
        return coveredFamily(networks).isPresent();
    }

    /** "IPv4" or "IPv6" when {@code networks} hold every address of that family (IPv4 first), else empty. */
    static Optional<String> coveredFamily(Collection<Cidr> networks) {
        return covers(networks, 4) ? Optional.of("IPv4") : covers(networks, 16) ? Optional.of("IPv6")
                : Optional.empty();
    }

    /** Whether the networks of one address length cover its whole space: merged in order, no gap is left. */
    private static boolean covers(Collection<Cidr> networks, int length) {
        List<Cidr> family = networks.stream().filter(n -> n.network.length == length)
                .sorted(Comparator.comparing((Cidr n) -> new BigInteger(1, n.network))).toList();
        BigInteger next = BigInteger.ZERO;
        for (Cidr n : family) {
            BigInteger first = new BigInteger(1, n.network);
            if (first.compareTo(next) > 0) {
                return false;
            }
            next = next.max(first.add(BigInteger.ONE.shiftLeft(length * 8 - n.prefixLength)));
        }
        return next.equals(BigInteger.ONE.shiftLeft(length * 8));
    }

    private static byte[] mask(byte[] address, int prefix) {
        byte[] out = address.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] = (byte) (out[i] & (0xFF << (8 - keep)));
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr other && other.prefixLength == prefixLength
                && java.util.Arrays.equals(other.network, network);
    }

    @Override
    public int hashCode() {
        return java.util.Arrays.hashCode(network) * 31 + prefixLength;
    }

    @Override
    public String toString() {
        return text;
    }
}
