package io.trunkgate.capture.internal;

import io.trunkgate.config.Transport;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * HEP version 3 (the HEP3/EEP specification, rev. 12): "HEP3", the packet's total length, then chunks of vendor 0,
 * each a type, its own length and its value, all in network byte order. The chunks come in the order Kamailio and
 * OpenSIPS send them, which some receivers (sngrep) read by position: address family, IP protocol, ports, time,
 * payload type SIP, capture agent id, addresses, the authentication key when there is a password, the Call-ID as
 * correlation id, and the message. One encoder per thread: it reuses its buffer.
 */
public final class HepEncoder {

    /** The largest packet sent: the most a UDP datagram over IPv4 carries (the header allows 65,535). */
    public static final int MAX_PACKET = 65_507;

    private static final byte[] MAGIC = "HEP3".getBytes(StandardCharsets.US_ASCII);
    private static final int HEADER = 6;
    private static final int CHUNK_HEADER = 6;
    private static final int IP_FAMILY = 0x01;
    private static final int IP_PROTOCOL = 0x02;
    private static final int IPV4_SOURCE = 0x03;
    private static final int IPV4_DESTINATION = 0x04;
    private static final int IPV6_SOURCE = 0x05;
    private static final int IPV6_DESTINATION = 0x06;
    private static final int SOURCE_PORT = 0x07;
    private static final int DESTINATION_PORT = 0x08;
    private static final int SECONDS = 0x09;
    private static final int MICROSECONDS = 0x0a;
    private static final int PAYLOAD_TYPE = 0x0b;
    private static final int CAPTURE_ID = 0x0c;
    private static final int AUTH_KEY = 0x0e;
    private static final int PAYLOAD = 0x0f;
    private static final int CORRELATION_ID = 0x11;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final int SIP = 1;
    private static final byte[] V4_MAPPED = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff};

    private final int captureId;
    private final byte[] password;
    private final ByteBuffer buffer = ByteBuffer.allocate(65_535);

    /** {@code captureId} from 0 to 2^32 - 1. */
    public HepEncoder(long captureId, Optional<String> password) {
        this.captureId = (int) captureId;
        this.password = password.map(p -> p.getBytes(StandardCharsets.UTF_8)).orElse(null);
    }

    /**
     * The HEP packet of {@code message}, in a buffer that stays valid until the next call; empty when it would be
     * over {@link #MAX_PACKET} bytes.
     */
    public Optional<ByteBuffer> encode(Captured message) {
        long callId = CallIds.find(message.bytes(), message.offset(), message.length());
        int callIdStart = (int) (callId >>> 32);
        int callIdLength = callId < 0 ? 0 : (int) callId - callIdStart;
        byte[] source = address(message.source());
        byte[] destination = address(message.destination());
        if (source.length != destination.length) {
            source = mapped(source);
            destination = mapped(destination);
        }
        int size = HEADER + 2 * (CHUNK_HEADER + 1) + 2 * (CHUNK_HEADER + 2) + 2 * (CHUNK_HEADER + 4)
                + (CHUNK_HEADER + 1) + (CHUNK_HEADER + 4) + 2 * (CHUNK_HEADER + source.length)
                + (password == null ? 0 : CHUNK_HEADER + password.length)
                + (callIdLength == 0 ? 0 : CHUNK_HEADER + callIdLength)
                + CHUNK_HEADER + message.length();
        if (size > MAX_PACKET) {
            return Optional.empty();
        }
        boolean v4 = source.length == 4;
        long micros = message.epochMicros();
        ByteBuffer out = buffer.clear();
        out.put(MAGIC).putShort((short) size);
        byteChunk(out, IP_FAMILY, v4 ? AF_INET : AF_INET6);
        byteChunk(out, IP_PROTOCOL, message.transport() == Transport.UDP ? UDP : TCP);
        shortChunk(out, SOURCE_PORT, message.source().getPort());
        shortChunk(out, DESTINATION_PORT, message.destination().getPort());
        intChunk(out, SECONDS, (int) Math.floorDiv(micros, 1_000_000));
        intChunk(out, MICROSECONDS, (int) Math.floorMod(micros, 1_000_000));
        byteChunk(out, PAYLOAD_TYPE, SIP);
        intChunk(out, CAPTURE_ID, captureId);
        bytesChunk(out, v4 ? IPV4_SOURCE : IPV6_SOURCE, source, 0, source.length);
        bytesChunk(out, v4 ? IPV4_DESTINATION : IPV6_DESTINATION, destination, 0, destination.length);
        if (password != null) {
            bytesChunk(out, AUTH_KEY, password, 0, password.length);
        }
        if (callIdLength > 0) {
            bytesChunk(out, CORRELATION_ID, message.bytes(), callIdStart, callIdLength);
        }
        bytesChunk(out, PAYLOAD, message.bytes(), message.offset(), message.length());
        return Optional.of(out.flip());
    }

    /** The address's bytes; an unresolved one (which the edge never reports) as the IPv4 wildcard. */
    private static byte[] address(InetSocketAddress socketAddress) {
        InetAddress address = socketAddress.getAddress();
        return address instanceof Inet4Address || address instanceof Inet6Address ? address.getAddress() : new byte[4];
    }

    /** An IPv4 address as IPv4-mapped IPv6 (RFC 4291 §2.5.5.2), for a packet whose other address is IPv6. */
    private static byte[] mapped(byte[] address) {
        if (address.length == 16) {
            return address;
        }
        byte[] v6 = new byte[16];
        System.arraycopy(V4_MAPPED, 0, v6, 0, V4_MAPPED.length);
        System.arraycopy(address, 0, v6, V4_MAPPED.length, 4);
        return v6;
    }

    private static void header(ByteBuffer out, int type, int valueLength) {
        out.putShort((short) 0).putShort((short) type).putShort((short) (CHUNK_HEADER + valueLength));
    }

    private static void byteChunk(ByteBuffer out, int type, int value) {
        header(out, type, 1);
        out.put((byte) value);
    }

    private static void shortChunk(ByteBuffer out, int type, int value) {
        header(out, type, 2);
        out.putShort((short) value);
    }

    private static void intChunk(ByteBuffer out, int type, int value) {
        header(out, type, 4);
        out.putInt(value);
    }

    private static void bytesChunk(ByteBuffer out, int type, byte[] value, int offset, int length) {
        header(out, type, length);
        out.put(value, offset, length);
    }
}
