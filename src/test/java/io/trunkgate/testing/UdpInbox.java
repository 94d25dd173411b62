package io.trunkgate.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A UDP socket on a loopback address that records every datagram it gets, in the order it got them, and lets a
 * test wait until what it got satisfies a condition: the receiving half of the hand-written SIP agents
 * ({@link RawSipPeer}, {@link RecordingCarrier}), which need every copy as it came rather than a transaction layer.
 */
public final class UdpInbox implements AutoCloseable {

    /** Compact header names (RFC 3261 §7.3.3) of the headers read here. */
    private static final Map<String, String> COMPACT = Map.of("v", "via", "f", "from", "t", "to", "i", "call-id",
            "m", "contact");

    /** One datagram as received: its text, its sender and when it came ({@link System#nanoTime}). */
    public record Datagram(String text, SocketAddress from, long atNanos) {

        /** The first line: a request line or a status line. */
        public String startLine() {
            int end = text.indexOf("\r\n");
            return end < 0 ? text : text.substring(0, end);
        }

        /** The response's status code; 0 for a request. */
        public int status() {
            String start = startLine();
            return start.startsWith("SIP/2.0 ") ? Integer.parseInt(start.substring(8, 11)) : 0;
        }

        /** The request's method; empty for a response. */
        public String method() {
            String start = startLine();
            return start.startsWith("SIP/2.0 ") || start.indexOf(' ') < 0 ? "" : start.substring(0, start.indexOf(' '));
        }

        public String requestUri() {
            String start = startLine();
            return start.substring(start.indexOf(' ') + 1, start.lastIndexOf(' '));
        }

        /** The header lines named {@code name} (full name, any case), values as written, in order. */
        public List<String> headers(String name) {
            List<String> values = new ArrayList<>();
            String wanted = name.toLowerCase(Locale.ROOT);
            for (String line : headerLines()) {
                int colon = line.indexOf(':');
                String header = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                if (COMPACT.getOrDefault(header, header).equals(wanted)) {
                    values.add(line.substring(colon + 1).trim());
                }
            }
            return values;
        }

        public String header(String name) {
            List<String> values = headers(name);
            return values.isEmpty() ? null : values.get(0);
        }

        public String callId() {
            return header("Call-ID");
        }

        /** The top Via's branch parameter. */
        public String topBranch() {
            String via = header("Via");
            int at = via.toLowerCase(Locale.ROOT).indexOf(";branch=");
            String rest = via.substring(at + ";branch=".length());
            return rest.split("[;,\\s]", 2)[0];
        }

        private List<String> headerLines() {
            int end = text.indexOf("\r\n\r\n");
            List<String> lines = new ArrayList<>(List.of((end < 0 ? text : text.substring(0, end)).split("\r\n")));
            lines.remove(0);
            lines.removeIf(line -> line.indexOf(':') < 0);
            return lines;
        }
    }

    private final DatagramSocket socket;
    private final String host;
    private final List<Datagram> received = new ArrayList<>();

    private UdpInbox(DatagramSocket socket, String host) {
        this.socket = socket;
        this.host = host;
    }

    /** An inbox on a free port of {@code host}, reading from now on (a daemon thread named after {@code name}). */
    public static UdpInbox open(String host, String name) throws IOException {
        UdpInbox inbox = new UdpInbox(new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0)), host);
        Thread reader = new Thread(inbox::read, name + "-" + host);
        reader.setDaemon(true);
        reader.start();
        return inbox;
    }

    public String host() {
        return host;
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** The datagrams received so far, in order. */
    public List<Datagram> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** Waits until {@code done} holds for the datagrams received, at most {@code timeoutMs}; says whether it did. */
    public boolean await(Predicate<List<Datagram>> done, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        synchronized (received) {
            while (!done.test(received)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                received.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    public void send(String text, SocketAddress to) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, to));
    }

    private void read() {
        byte[] buffer = new byte[65_535];
        while (!socket.isClosed()) {
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(packet);
            } catch (SocketException closed) {
                return;
            } catch (IOException e) {
                continue;
            }
            Datagram datagram = new Datagram(new String(packet.getData(), 0, packet.getLength(),
                    StandardCharsets.UTF_8), packet.getSocketAddress(), System.nanoTime());
            synchronized (received) {
                received.add(datagram);
                received.notifyAll();
            }
        }
    }

    @Override
    public void close() {
        socket.close();
    }
}
