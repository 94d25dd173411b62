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
 * A carrier on a raw UDP socket that answers nothing by itself and records every datagram it gets, in the order it
 * got them: a transaction layer would absorb retransmissions, this shows each copy. The test answers a request
 * by hand ({@link #respond}), as a carrier that comes back late would.
 */
public final class RecordingCarrier implements AutoCloseable {

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

    private RecordingCarrier(DatagramSocket socket, String host) {
        this.socket = socket;
        this.host = host;
    }

    public static RecordingCarrier start(String host) throws IOException {
        RecordingCarrier carrier = new RecordingCarrier(
                new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), 0)), host);
        Thread reader = new Thread(carrier::read, "recording-carrier-" + host);
        reader.setDaemon(true);
        reader.start();
        return carrier;
    }

    /** The carrier's URI for the gateway's configuration. */
    public String uri() {
        return "sip:" + host + ":" + socket.getLocalPort() + ";transport=udp";
    }

    /** The requests with {@code method} in call {@code callId} received so far, in order. */
    public List<Datagram> requests(String method, String callId) {
        synchronized (received) {
            return received.stream().filter(d -> d.method().equals(method) && callId.equals(d.callId())).toList();
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

    /** Waits until {@code count} requests with {@code method} came in call {@code callId}; says whether they did. */
    public boolean awaitRequests(String method, String callId, int count, long timeoutMs)
            throws InterruptedException {
        return await(all -> all.stream().filter(d -> d.method().equals(method) && callId.equals(d.callId()))
                .count() >= count, timeoutMs);
    }

    /**
     * Answers {@code request} with {@code status}, to where it came from: its Via, From, Call-ID and CSeq copied,
     * its To with {@code toTag}, and a Contact of this carrier's.
     */
    public void respond(Datagram request, int status, String reason, String toTag) throws IOException {
        StringBuilder response = new StringBuilder("SIP/2.0 ").append(status).append(' ').append(reason)
                .append("\r\n");
        for (String via : request.headers("Via")) {
            response.append("Via: ").append(via).append("\r\n");
        }
        String to = request.header("To");
        response.append("From: ").append(request.header("From")).append("\r\n")
                .append("To: ").append(to.contains(";tag=") ? to : to + ";tag=" + toTag).append("\r\n")
                .append("Call-ID: ").append(request.callId()).append("\r\n")
                .append("CSeq: ").append(request.header("CSeq")).append("\r\n")
                .append("Contact: <sip:callee@").append(host).append(':').append(socket.getLocalPort())
                .append(">\r\n")
                .append("Content-Length: 0\r\n\r\n");
        byte[] bytes = response.toString().getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, request.from()));
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
