package io.trunkgate.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A peer that writes its SIP by hand over UDP, as a hostile or an old (RFC 2543) peer would: every header is the
 * test's choice (Call-ID, From tag, CSeq, branch). It records every response it gets; a 2xx can be ACKed and its
 * call ended with a BYE along the Record-Route the gateway put in it.
 */
public final class RawSipPeer implements AutoCloseable {

    /** A response as received: its status and the headers the tests look at. */
    public record Answer(int status, String callId, String fromTag, String toTag, long cseq, String method,
                         List<String> recordRoutes, String contact, String text) {
    }

    private final DatagramSocket socket;
    private final String host;
    private final InetAddress gateway;
    private final int gatewayPort;
    private final List<Answer> answers = new ArrayList<>();
    private final Thread reader;

    public RawSipPeer(String host, String gatewayHost, int gatewayPort) throws IOException {
        this.host = host;
        this.socket = new DatagramSocket(0, InetAddress.getByName(host));
        this.gateway = InetAddress.getByName(gatewayHost);
        this.gatewayPort = gatewayPort;
        this.reader = new Thread(this::read, "raw-sip-peer-" + host);
        reader.setDaemon(true);
        reader.start();
    }

    public String host() {
        return host;
    }

    public int port() {
        return socket.getLocalPort();
    }

    /** An INVITE for {@code number} with the given identity; {@code branch} as written in the Via (any form). */
    public void invite(String number, String callId, String fromTag, long cseq, String branch) throws IOException {
        send("INVITE sip:" + number + "@" + gateway.getHostAddress() + ":" + gatewayPort + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + port() + (branch == null ? "" : ";branch=" + branch) + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + host + ">;tag=" + fromTag + "\r\n"
                + "To: <sip:" + number + "@" + gateway.getHostAddress() + ">\r\n"
                + "Call-ID: " + callId + "\r\n"
                + "CSeq: " + cseq + " INVITE\r\n"
                + "Contact: <sip:caller@" + host + ":" + port() + ">\r\n"
                + "Content-Length: 0\r\n\r\n");
    }

    /** ACKs a 2xx and returns nothing; the ACK follows the answer's Record-Route to its Contact. */
    public void ack(Answer ok, String branch) throws IOException {
        send(inDialog("ACK", ok, ok.cseq(), branch));
    }

    /** A BYE in the dialog {@code ok} set up, with CSeq {@code cseq}. */
    public void bye(Answer ok, long cseq, String branch) throws IOException {
        send(inDialog("BYE", ok, cseq, branch));
    }

    private String inDialog(String method, Answer ok, long cseq, String branch) {
        StringBuilder routes = new StringBuilder();
        // The caller's route set is the Record-Route of the 2xx in order (RFC 3261 §12.1.2).
        for (String route : ok.recordRoutes()) {
            routes.append("Route: ").append(route).append("\r\n");
        }
        return method + " " + ok.contact() + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ":" + port() + ";branch=" + branch + "\r\n"
                + routes
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + host + ">;tag=" + ok.fromTag() + "\r\n"
                + "To: <sip:callee@" + gateway.getHostAddress() + ">;tag=" + ok.toTag() + "\r\n"
                + "Call-ID: " + ok.callId() + "\r\n"
                + "CSeq: " + cseq + " " + method + "\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    public void send(String message) throws IOException {
        byte[] bytes = message.getBytes(StandardCharsets.UTF_8);
        socket.send(new DatagramPacket(bytes, bytes.length, gateway, gatewayPort));
    }

    /** The responses received so far. */
    public List<Answer> answers() {
        synchronized (answers) {
            return List.copyOf(answers);
        }
    }

    /** Waits until a response matching {@code wanted} has come, at most {@code timeoutMs}. */
    public Optional<Answer> await(Predicate<Answer> wanted, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        synchronized (answers) {
            while (true) {
                Optional<Answer> found = answers.stream().filter(wanted).findFirst();
                long left = deadline - System.nanoTime();
                if (found.isPresent() || left <= 0) {
                    return found;
                }
                answers.wait(Math.max(1, left / 1_000_000));
            }
        }
    }

    /** Waits until {@code done} holds for the responses received, at most {@code timeoutMs}; says whether it did. */
    public boolean awaitAll(Predicate<List<Answer>> done, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000;
        synchronized (answers) {
            while (!done.test(answers)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                answers.wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
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
            String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
            if (text.startsWith("SIP/2.0 ")) {
                Answer answer = parse(text);
                synchronized (answers) {
                    answers.add(answer);
                    answers.notifyAll();
                }
            }
        }
    }

    private static Answer parse(String text) {
        String[] lines = text.split("\r\n");
        int status = Integer.parseInt(lines[0].substring(8, 11));
        String callId = null;
        String fromTag = null;
        String toTag = null;
        long cseq = 0;
        String method = null;
        String contact = null;
        List<String> recordRoutes = new ArrayList<>();
        for (String line : lines) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            switch (name) {
                case "call-id", "i" -> callId = value;
                case "from", "f" -> fromTag = tag(value);
                case "to", "t" -> toTag = tag(value);
                case "cseq" -> {
                    String[] parts = value.split("\\s+");
                    cseq = Long.parseLong(parts[0]);
                    method = parts[1];
                }
                case "record-route" -> {
                    for (String route : value.split(",")) {
                        recordRoutes.add(route.trim());
                    }
                }
                case "contact", "m" -> contact = value.replaceAll("^.*<", "").replaceAll(">.*$", "");
                default -> { }
            }
        }
        return new Answer(status, callId, fromTag, toTag, cseq, method, recordRoutes, contact, text);
    }

    private static String tag(String value) {
        int at = value.indexOf(";tag=");
        if (at < 0) {
            return null;
        }
        String rest = value.substring(at + 5);
        int end = rest.indexOf(';');
        return end < 0 ? rest : rest.substring(0, end);
    }

    @Override
    public void close() {
        socket.close();
    }
}
