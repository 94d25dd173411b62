package io.trunkgate.testing;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/** Raw SIP over real sockets on loopback, and the gateway the transport tests send it to. */
public final class SipSockets {

    public static final String GW = "127.0.0.1";
    private static final AtomicInteger COUNTER = new AtomicInteger();

    private SipSockets() {
    }

    /** A gateway on a free port whose peers are {@code peerSources}, routing every call to {@code carrier}. */
    public static Gateway startGateway(int port, TcpLimits limits, SipAgent carrier, String... peerSources) throws Exception {
        return Gateway.start(config(port, limits, carrier, peerSources).build());
    }

    /**
     * The configuration of such a gateway, to add to. Its instance id, and so its stack's name, is its own:
     * JAIN-SIP's SipFactory hands out the stack it already has for a name, with that stack's settings, so a name
     * another test used would bring that test's limits.
     */
    public static TestConfigs config(int port, TcpLimits limits, SipAgent carrier, String... peerSources) {
        RedisSettings shared = StandaloneRedis.shared().settings();
        TestConfigs config = new TestConfigs(new RedisSettings(shared.mode(), shared.addresses(),
                shared.sentinelMaster(), shared.password(), shared.timeout(), "tg-transport-" + UUID.randomUUID(), 0),
                port)
                .instance("transport-" + port)
                .tcpLimits(limits)
                .carrier("c", carrier, 10_000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("", "c");
        for (String source : peerSources) {
            config.peer("peer-" + source, source, Limit.exact(Duration.ofSeconds(1), 100_000));
        }
        return config;
    }

    public static int freePort() {
        return RedisServerProcess.freePort();
    }

    public static Socket connect(String source, int port) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(source, 0));
        socket.connect(new InetSocketAddress(GW, port), 2000);
        return socket;
    }

    /** An INVITE from the socket's address to {@code +1555...} at the gateway, with no body. */
    public static String invite(String transport, String source, int sourcePort, int gatewayPort) {
        String id = "t" + COUNTER.incrementAndGet() + UUID.randomUUID().toString().substring(0, 8);
        return "INVITE sip:+15550001@" + GW + ":" + gatewayPort + " SIP/2.0\r\n"
                + "Via: SIP/2.0/" + transport + " " + source + ":" + sourcePort + ";branch=z9hG4bK" + id + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + source + ">;tag=" + id + "\r\n"
                + "To: <sip:+15550001@" + GW + ">\r\n"
                + "Call-ID: " + id + "@" + source + "\r\n"
                + "CSeq: 1 INVITE\r\n"
                + "Contact: <sip:caller@" + source + ":" + sourcePort + ";transport="
                + transport.toLowerCase(Locale.ROOT) + ">\r\n"
                + "Content-Length: 0\r\n\r\n";
    }

    public static String invite(Socket socket, int gatewayPort) {
        return invite("TCP", socket.getLocalAddress().getHostAddress(), socket.getLocalPort(), gatewayPort);
    }

    public static void send(Socket socket, String text) throws IOException {
        socket.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
    }

    /**
     * The messages that arrive on {@code socket} until one has a final status (200 and above), the connection
     * closes, or {@code timeout} passes; each as its full text.
     */
    public static List<String> responsesUntilFinal(Socket socket, Duration timeout) throws IOException {
        return responsesUntilFinals(socket, 1, timeout);
    }

    /** As {@link #responsesUntilFinal}, until {@code finals} final responses have arrived. */
    public static List<String> responsesUntilFinals(Socket socket, int finals, Duration timeout) throws IOException {
        List<String> messages = new ArrayList<>();
        ByteArrayOutputStream pending = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + timeout.toNanos();
        InputStream in = socket.getInputStream();
        byte[] chunk = new byte[4096];
        int finalsSeen = 0;
        while (System.nanoTime() < deadline) {
            socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            int read;
            try {
                read = in.read(chunk);
            } catch (SocketTimeoutException e) {
                break;
            }
            if (read < 0) {
                break;
            }
            pending.write(chunk, 0, read);
            String text = pending.toString(StandardCharsets.ISO_8859_1);
            int end;
            while ((end = messageEnd(text)) > 0) {
                String message = text.substring(0, end);
                messages.add(message);
                text = text.substring(end);
                if (message.startsWith("SIP/2.0 ") && message.charAt(8) >= '2' && ++finalsSeen == finals) {
                    return messages;
                }
            }
            pending.reset();
            pending.write(text.getBytes(StandardCharsets.ISO_8859_1));
        }
        return messages;
    }

    /** Where the first message of {@code text} ends (leading CRLFs included), or -1 if it is not all there. */
    private static int messageEnd(String text) {
        int start = 0;
        while (start < text.length() && (text.charAt(start) == '\r' || text.charAt(start) == '\n')) {
            start++;
        }
        int headersEnd = text.indexOf("\r\n\r\n", start);
        if (start == text.length() || headersEnd < 0) {
            return -1;
        }
        int length = 0;
        for (String line : text.substring(start, headersEnd).split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:") || lower.startsWith("l:")) {
                length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        int end = headersEnd + 4 + length;
        return end <= text.length() ? end : -1;
    }

    public static String statusLine(String message) {
        return message.substring(0, message.indexOf("\r\n"));
    }

    /** Whether the gateway closed {@code socket} within {@code timeout}: end of stream or a reset. */
    public static boolean closedWithin(Socket socket, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] chunk = new byte[1024];
        while (System.nanoTime() < deadline) {
            socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            try {
                if (socket.getInputStream().read(chunk) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (IOException reset) {
                return true;
            }
        }
        return false;
    }

    /**
     * TCP connections from this host to {@code address:port} in state ESTABLISHED, as /proc/net/tcp and tcp6
     * list them (hex, IPv4 little-endian on x86; Java's dual-stack sockets show IPv4 as IPv4-mapped IPv6).
     */
    public static long establishedTo(String address, int port) throws IOException {
        byte[] octets = java.net.InetAddress.getByName(address).getAddress();
        String ipv4 = String.format("%02X%02X%02X%02X:%04X", octets[3], octets[2], octets[1], octets[0], port);
        Set<String> remotes = Set.of(ipv4, "0000000000000000FFFF0000" + ipv4);
        long established = 0;
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            try (Stream<String> lines = Files.lines(Path.of(table))) {
                established += lines.skip(1).map(line -> line.trim().split("\\s+"))
                        .filter(fields -> remotes.contains(fields[2]) && fields[3].equals("01")).count();
            }
        }
        return established;
    }

    /** File descriptors this JVM has open: the gateway's sockets and the test's own. */
    public static long openDescriptors() throws IOException {
        try (Stream<Path> descriptors = Files.list(Path.of("/proc/self/fd"))) {
            return descriptors.count();
        }
    }

    public static void closeAll(List<Socket> sockets) {
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // already gone
            }
        }
    }
}
