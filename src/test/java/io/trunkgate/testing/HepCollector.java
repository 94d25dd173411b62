package io.trunkgate.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/**
 * A capture collector on a UDP port of the loopback: keeps each HEP packet it receives, its chunks read by type
 * (the conformance of the encoding is HepDecodersTest's, against decoders that are not the gateway's).
 */
public final class HepCollector implements AutoCloseable {

    /** One HEP packet: the addresses, transport, time, capture id, correlation id and message it carries. */
    public record Packet(InetSocketAddress source, InetSocketAddress destination, int ipProtocol, long epochMicros,
                         long captureId, String correlationId, String payload) {

        /** The message's first line: "INVITE sip:... SIP/2.0", "SIP/2.0 180 Ringing". */
        public String startLine() {
            return payload.substring(0, payload.indexOf("\r\n"));
        }
    }

    private final DatagramSocket socket;
    private final List<Packet> packets = new ArrayList<>();

    public HepCollector() throws IOException {
        socket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        Thread reader = new Thread(this::receive, "hep-collector");
        reader.setDaemon(true);
        reader.start();
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** The packets received so far once {@code wanted} holds for them, or as they are after {@code timeout}. */
    public List<Packet> await(Predicate<List<Packet>> wanted, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (packets) {
            while (!wanted.test(List.copyOf(packets))) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                packets.wait(Math.max(1, left / 1_000_000));
            }
            return List.copyOf(packets);
        }
    }

    private void receive() {
        DatagramPacket datagram = new DatagramPacket(new byte[65_535], 65_535);
        try {
            while (true) {
                socket.receive(datagram);
                Packet packet = decode(Arrays.copyOf(datagram.getData(), datagram.getLength()));
                synchronized (packets) {
                    packets.add(packet);
                    packets.notifyAll();
                }
            }
        } catch (IOException closed) {
            // closed
        }
    }

    /** Reads a HEP3 packet's generic chunks. */
    public static Packet decode(byte[] hep) throws UnknownHostException {
        ByteBuffer in = ByteBuffer.wrap(hep);
        byte[] magic = new byte[4];
        in.get(magic);
        if (!"HEP3".equals(new String(magic, StandardCharsets.US_ASCII)) || (in.getShort() & 0xffff) != hep.length) {
            throw new IllegalArgumentException("not a HEP3 packet of its length");
        }
        byte[] source = null;
        byte[] destination = null;
        int sourcePort = -1;
        int destinationPort = -1;
        int protocol = -1;
        long seconds = 0;
        long micros = 0;
        long captureId = -1;
        String correlation = null;
        String payload = null;
        while (in.hasRemaining()) {
            in.getShort();
            int type = in.getShort();
            byte[] value = new byte[(in.getShort() & 0xffff) - 6];
            in.get(value);
            ByteBuffer v = ByteBuffer.wrap(value);
            switch (type) {
                case 0x02 -> protocol = v.get() & 0xff;
                case 0x03, 0x05 -> source = value;
                case 0x04, 0x06 -> destination = value;
                case 0x07 -> sourcePort = v.getShort() & 0xffff;
                case 0x08 -> destinationPort = v.getShort() & 0xffff;
                case 0x09 -> seconds = v.getInt() & 0xffffffffL;
                case 0x0a -> micros = v.getInt() & 0xffffffffL;
                case 0x0c -> captureId = v.getInt() & 0xffffffffL;
                case 0x11 -> correlation = new String(value, StandardCharsets.UTF_8);
                case 0x0f -> payload = new String(value, StandardCharsets.UTF_8);
                default -> { }
            }
        }
        return new Packet(new InetSocketAddress(InetAddress.getByAddress(source), sourcePort),
                new InetSocketAddress(InetAddress.getByAddress(destination), destinationPort), protocol,
                seconds * 1_000_000 + micros, captureId, correlation, payload);
    }

    @Override
    public void close() {
        socket.close();
    }
}
