package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import io.trunkgate.testing.ThirdHost;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The malformed-SIP corpus in src/test/resources/hostile-sip, replayed over UDP and TCP from a known peer,
 * and floods from unknown sources: the gateway answers what it can, drops the rest, and keeps serving calls.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileInputTest {

    private static final String GW = "127.0.0.1";
    private static final String HOSTILE = "127.0.0.51";
    private static final String STRANGER = "127.0.0.54";
    private static final Path CORPUS = Path.of("src/test/resources/hostile-sip");

    /**
     * What each corpus message gets over UDP: the status codes of the answers ("" = dropped without an
     * answer, which is what a message whose Via, Call-ID, CSeq or From cannot be read gets, an ACK or a stray
     * response that is absorbed, and a request whose answer would go to a multicast address), or "call" when it
     * is still a valid INVITE despite its oddity (a stray header line, a stream that is complete as a datagram,
     * no Max-Forwards, which the proxy adds) and is connected like any
     * other. The "relay-" cases try to use the gateway as an open relay: a request with a To tag of no dialog
     * the gateway admitted, aimed at a third host or straight at the carrier; a response whose next Via is a
     * third host or a broadcast address; an initial INVITE with a Route to a third host preloaded (it is
     * connected, but to the carrier routing chose). The "rfc4475-" cases are RFC 4475's multi01 (several values in
     * single-value headers), mcl01 (two Content-Lengths) and baddn (unquoted display names with a comma), each
     * answered 400 as the RFC says.
     */
    private static final Map<String, String> EXPECTED_OVER_UDP = new TreeMap<>(Map.ofEntries(
            Map.entry("bad-content-length.sip", "400"),
            Map.entry("bad-cseq.sip", "400"),
            Map.entry("bad-max-forwards.sip", "400"),
            Map.entry("bad-request-line.sip", ""),
            Map.entry("bad-request-uri.sip", "400"),
            Map.entry("bad-sip-version.sip", "505"),
            Map.entry("bad-via.sip", "400"),
            Map.entry("binary-junk.bin", ""),
            Map.entry("cseq-method-mismatch.sip", "400"),
            Map.entry("empty.sip", ""),
            Map.entry("header-flood.sip", "513"),
            Map.entry("headers-without-colon.sip", "call"),
            Map.entry("huge-max-forwards.sip", "400"),
            Map.entry("long-header-line.sip", "513"),
            Map.entry("many-vias.sip", "483"),
            Map.entry("missing-call-id.sip", ""),
            Map.entry("missing-cseq.sip", ""),
            Map.entry("missing-from.sip", ""),
            Map.entry("missing-max-forwards.sip", "call"),
            Map.entry("missing-via.sip", ""),
            Map.entry("negative-content-length.sip", "400"),
            Map.entry("negative-max-forwards.sip", "400"),
            Map.entry("nul-bytes.bin", ""),
            Map.entry("oversized-invite.sip", "513"),
            Map.entry("proxy-require-unknown.sip", "420"),
            Map.entry("relay-ack-to-third-host.sip", ""),
            Map.entry("relay-bye-to-carrier.sip", "481"),
            Map.entry("relay-bye-to-third-host.sip", "481"),
            Map.entry("relay-preloaded-route-invite.sip", "call"),
            Map.entry("relay-stray-response-broadcast.sip", ""),
            Map.entry("relay-stray-response-to-third-host.sip", ""),
            Map.entry("relay-to-tag-invite-to-carrier.sip", "481"),
            Map.entry("relay-to-tag-invite-to-third-host.sip", "481"),
            Map.entry("response-unknown-transaction.sip", ""),
            Map.entry("response-without-headers.sip", ""),
            Map.entry("rfc4475-baddn.sip", "400"),
            Map.entry("rfc4475-mcl01.sip", "400"),
            Map.entry("rfc4475-multi01.sip", "400"),
            Map.entry("truncated.sip", ""),
            Map.entry("unknown-uri-scheme.sip", "416"),
            Map.entry("unterminated-tcp.sip", "call"),
            Map.entry("via-maddr-multicast.sip", "")));

    /**
     * Over TCP, what differs from UDP: the stream is framed by Content-Length, so a message that announces more
     * body than it sends (Content-Length 5000, and the unterminated stream that is complete as a datagram) is
     * not answered: the gateway waits for the rest, and closes the connection at sip.tcp.message-timeout.
     */
    private static final Map<String, String> EXPECTED_OVER_TCP = overTcp();
    /** How long an expected answer may take on a loaded machine. */
    private static final int ANSWER_DEADLINE_MS = 5_000;
    /** How long the gateway must stay silent after the expected answers (or where silence is expected). */
    private static final int QUIET_MS = 300;
    /** The relay cases sent from an address that is no peer. */
    private static final Map<String, String> FROM_A_STRANGER = Map.of("relay-ack-to-third-host.sip", "",
            "relay-bye-to-carrier.sip", "481", "relay-bye-to-third-host.sip", "481",
            "relay-preloaded-route-invite.sip", "403", "relay-stray-response-broadcast.sip", "",
            "relay-stray-response-to-third-host.sip", "", "relay-to-tag-invite-to-carrier.sip", "481",
            "relay-to-tag-invite-to-third-host.sip", "481");

    private static Map<String, String> overTcp() {
        Map<String, String> expected = new TreeMap<>(EXPECTED_OVER_UDP);
        expected.putAll(Map.of("bad-content-length.sip", "", "unterminated-tcp.sip", ""));
        return expected;
    }

    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent carrier;
    private ThirdHost third;
    /** The Call-ID of each relay case sent in the running test, by file name. */
    private final Map<String, String> relayCallIds = new TreeMap<>();
    private final AtomicInteger counter = new AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.52");
        carrier = SipAgent.start("127.0.0.53");
        third = ThirdHost.start("127.0.0.60");
        port = RedisServerProcess.freePort();
        var redis = RedisBackend.settings(RedisMode.STANDALONE, List.of(StandaloneRedis.shared().server().address()));
        gateway = Gateway.start(new TestConfigs(new io.trunkgate.config.RedisSettings(redis.mode(), redis.addresses(),
                redis.sentinelMaster(), redis.password(), redis.timeout(), "tg-hostile-" + UUID.randomUUID(), 0), port)
                .peer("hostile", HOSTILE, Limit.exact(Duration.ofSeconds(1), 100_000))
                .peer("honest", "127.0.0.52", Limit.exact(Duration.ofSeconds(1), 100_000))
                .carrier("c", carrier, 10_000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("", "c")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(caller, carrier).parallel().forEach(SipAgent::close);
        third.close();
    }

    private byte[] corpusFile(Path file, String transport, int sourcePort) throws IOException {
        return corpusFile(file, transport, sourcePort, HOSTILE);
    }

    private byte[] corpusFile(Path file, String transport, int sourcePort, String source) throws IOException {
        byte[] raw = Files.readAllBytes(file);
        if (file.toString().endsWith(".bin")) {
            return raw;
        }
        String rand = "h" + counter.incrementAndGet() + UUID.randomUUID().toString().substring(0, 8);
        if (file.getFileName().toString().startsWith("relay-")) {
            relayCallIds.put(file.getFileName().toString(), rand + "@" + source);
        }
        StringBuilder extraVias = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            extraVias.append(i == 0 ? "" : "\r\n").append("Via: SIP/2.0/UDP 192.0.2.").append(i % 250 + 1)
                    .append(";branch=z9hG4bKv").append(i);
        }
        String text = new String(raw, StandardCharsets.ISO_8859_1)
                .replace("{gw}", GW).replace("{port}", Integer.toString(port)).replace("{src}", source)
                .replace("{srcport}", Integer.toString(sourcePort)).replace("{transport}", transport)
                .replace("{third}", third.address()).replace("{thirdport}", Integer.toString(third.port()))
                .replace("{carrier}", carrier.host() + ":" + carrier.port())
                .replace("{pad}", "x".repeat(65_000)).replace("{vias}", extraVias)
                .replace("{rand}", rand);
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Nothing of the corpus reached the third host, and the carrier saw only the INVITE it was routed. */
    private void assertNothingRelayed() {
        assertEquals(0, third.received(), "messages the gateway sent to a third host");
        Map<String, String> fileByCallId = new TreeMap<>();
        relayCallIds.forEach((file, callId) -> fileByCallId.put(callId, file));
        List<String> atCarrier = new ArrayList<>();
        for (String method : List.of("INVITE", "ACK", "BYE")) {
            carrier.received(method).stream()
                    .map(r -> ((javax.sip.header.CallIdHeader) r.request().getHeader("Call-ID")).getCallId())
                    .filter(fileByCallId::containsKey).forEach(id -> atCarrier.add(method + " " + fileByCallId.get(id)));
        }
        assertEquals(List.of("INVITE relay-preloaded-route-invite.sip"), atCarrier,
                "relay cases that reached the carrier: only the initial INVITE, sent where routing says");
    }

    private static List<Path> corpus() throws IOException {
        try (Stream<Path> files = Files.list(CORPUS)) {
            return files.sorted().toList();
        }
    }

    private void assertCallsStillWork() throws Exception {
        List<SipAgent.Call> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            calls.add(caller.invite(GW, port, "+4470000" + i));
        }
        for (SipAgent.Call call : calls) {
            Response answer = call.awaitFinal(5000);
            assertNotNull(answer, "a call after the hostile input got no answer");
            assertEquals(200, answer.getStatusCode());
        }
    }

    @Test
    void corpusOverUdpIsAnsweredOrDroppedAndCallsGoOn() throws Exception {
        relayCallIds.clear();
        Map<String, String> outcome = new TreeMap<>();
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(HOSTILE));
             LogCapture logs = LogCapture.start()) {
            for (Path file : corpus()) {
                byte[] message = corpusFile(file, "UDP", socket.getLocalPort());
                socket.send(new DatagramPacket(message, message.length, InetAddress.getByName(GW), port));
                String name = file.getFileName().toString();
                outcome.put(name, answers(socket, EXPECTED_OVER_UDP.getOrDefault(name, "")));
            }
            logs.assertAtMostOneCleanLinePer(outcome.size());
        }
        outcome.forEach((file, answers) -> System.out.println("hostile UDP " + file + " -> " + answers));
        assertEquals(EXPECTED_OVER_UDP, outcome, "each corpus message gets its defined outcome");
        assertCallsStillWork();
        assertNothingRelayed();
    }

    @Test
    void corpusOverTcpIsAnsweredOrDroppedAndCallsGoOn() throws Exception {
        relayCallIds.clear();
        Map<String, String> outcome = new TreeMap<>();
        List<Socket> leftOpen = new ArrayList<>();
        try (LogCapture logs = LogCapture.start()) {
            for (Path file : corpus()) {
                Socket socket = new Socket();
                socket.bind(new InetSocketAddress(HOSTILE, 0));
                socket.connect(new InetSocketAddress(GW, port), 1000);
                socket.getOutputStream().write(corpusFile(file, "TCP", socket.getLocalPort()));
                socket.getOutputStream().flush();
                String name = file.getFileName().toString();
                outcome.put(name, answers(socket, EXPECTED_OVER_TCP.getOrDefault(name, "")));
                if (file.getFileName().toString().startsWith("unterminated")) {
                    leftOpen.add(socket);
                } else {
                    socket.close();
                }
            }
            outcome.forEach((file, answers) -> System.out.println("hostile TCP " + file + " -> " + answers));
            assertEquals(EXPECTED_OVER_TCP, outcome, "each corpus message gets its defined outcome over TCP");
            logs.assertAtMostOneCleanLinePer(outcome.size());
        } finally {
            for (Socket socket : leftOpen) {
                socket.close();
            }
        }
        assertCallsStillWork();
        assertNothingRelayed();
    }

    /** The relay cases from an address that is no peer: refused alike, and nothing reaches anyone. */
    @Test
    void relayCasesFromAStrangerReachNobody() throws Exception {
        relayCallIds.clear();
        Map<String, String> outcome = new TreeMap<>();
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(STRANGER))) {
            for (Path file : corpus()) {
                if (file.getFileName().toString().startsWith("relay-")) {
                    byte[] message = corpusFile(file, "UDP", socket.getLocalPort(), STRANGER);
                    socket.send(new DatagramPacket(message, message.length, InetAddress.getByName(GW), port));
                    String name = file.getFileName().toString();
                    outcome.put(name, answers(socket, FROM_A_STRANGER.getOrDefault(name, "")));
                }
            }
        }
        assertEquals(FROM_A_STRANGER, outcome);
        assertEquals(0, third.received(), "messages the gateway sent to a third host");
        assertTrue(carrier.received("INVITE").stream().noneMatch(r -> relayCallIds.containsValue(
                ((javax.sip.header.CallIdHeader) r.request().getHeader("Call-ID")).getCallId())),
                "a stranger's INVITE reached the carrier");
    }

    /**
     * A known peer sending 100 INVITEs with an invented To tag straight at the carrier, far past its limit:
     * none reaches the carrier, and the refusals it gets back are capped per second.
     */
    @Test
    void toTagInvitesFromAPeerNeverReachTheCarrier() throws Exception {
        int answered = 0;
        List<String> callIds = new ArrayList<>();
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName(HOSTILE))) {
            for (int i = 0; i < 100; i++) {
                String callId = "totag" + i + "-" + UUID.randomUUID() + "@" + HOSTILE;
                callIds.add(callId);
                String invite = "INVITE sip:+15550001@" + carrier.host() + ":" + carrier.port() + " SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP " + HOSTILE + ":" + socket.getLocalPort() + ";branch=z9hG4bKtt" + i + "\r\n"
                        + "Route: <sip:" + GW + ":" + port + ";lr>\r\nMax-Forwards: 70\r\n"
                        + "From: <sip:p@" + HOSTILE + ">;tag=f" + i + "\r\nTo: <sip:+15550001@" + GW + ">;tag=t" + i
                        + "\r\nCall-ID: " + callId + "\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n";
                byte[] bytes = invite.getBytes(StandardCharsets.US_ASCII);
                socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(GW), port));
            }
            socket.setSoTimeout(500);
            byte[] buffer = new byte[4096];
            try {
                while (true) {
                    socket.receive(new DatagramPacket(buffer, buffer.length));
                    answered++;
                }
            } catch (SocketTimeoutException quiet) {
                // no more answers
            }
        }
        // A known call through the same gateway proves the INVITEs were processed, not still queued.
        assertCallsStillWork();
        assertTrue(carrier.received("INVITE").stream().noneMatch(r -> callIds.contains(
                ((javax.sip.header.CallIdHeader) r.request().getHeader("Call-ID")).getCallId())),
                "a To-tag INVITE reached the carrier");
        assertTrue(answered >= 1 && answered <= 10, answered + " refusals answered for 100 INVITEs sent at once");
    }

    @Test
    void floodFromAnUnknownSourceIsCutOffAndDoesNotStarveKnownPeers() throws Exception {
        int answered = 0;
        try (DatagramSocket flood = new DatagramSocket(0, InetAddress.getByName("127.0.0.98"))) {
            flood.setSoTimeout(1);
            byte[] buffer = new byte[4096];
            for (int i = 0; i < 3000; i++) {
                String invite = "INVITE sip:+1555@" + GW + ":" + port + " SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.98:" + flood.getLocalPort() + ";branch=z9hG4bKflood" + i + "\r\n"
                        + "Max-Forwards: 70\r\nFrom: <sip:f@127.0.0.98>;tag=f" + i + "\r\nTo: <sip:+1555@" + GW + ">\r\n"
                        + "Call-ID: flood" + i + "@127.0.0.98\r\nCSeq: 1 INVITE\r\nContent-Length: 0\r\n\r\n";
                byte[] bytes = invite.getBytes(StandardCharsets.US_ASCII);
                flood.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(GW), port));
                if (i % 100 == 99) {
                    assertEquals(200, caller.invite(GW, port, "+4471" + i).awaitFinal(5000).getStatusCode(),
                            "a known peer's call during the flood");
                }
            }
            long until = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < until) {
                try {
                    flood.receive(new DatagramPacket(buffer, buffer.length));
                    answered++;
                } catch (SocketTimeoutException drained) {
                    if (answered > 0) {
                        break;
                    }
                }
            }
        }
        assertTrue(answered > 0 && answered < 100, answered + " of 3000 flood INVITEs were answered");
    }

    /** Over TCP: the status codes of every answer on the connection within 300 ms ("call" as over UDP). */
    /**
     * The status codes of the answers to one message, e.g. "400", or "call" when it was answered 200. Waits up to
     * {@link #ANSWER_DEADLINE_MS} for what {@code expected} says should come (a loaded machine may take that long),
     * then {@link #QUIET_MS} more for anything further; where silence is expected, {@link #QUIET_MS} of it.
     */
    private static String answers(Socket socket, String expected) throws IOException {
        java.io.ByteArrayOutputStream received = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[65535];
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_DEADLINE_MS);
        InputStream in = socket.getInputStream();
        String codes = "";
        try {
            while (true) {
                boolean waitingForExpected = !expected.isEmpty() && !codes.equals(expected)
                        && System.nanoTime() < deadline;
                socket.setSoTimeout(waitingForExpected ? (int) Math.max(1,
                        TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) : QUIET_MS);
                int n;
                try {
                    n = in.read(buffer);
                } catch (SocketTimeoutException timeout) {
                    if (waitingForExpected) {
                        continue;
                    }
                    break;
                }
                if (n < 0) {
                    break;
                }
                received.write(buffer, 0, n);
                codes = statusCodes(received.toString(StandardCharsets.ISO_8859_1));
            }
        } catch (java.net.SocketException closed) {
            // the gateway closed the connection
        }
        return codes;
    }

    private static String statusCodes(String text) {
        List<String> codes = new ArrayList<>();
        java.util.regex.Matcher status = java.util.regex.Pattern.compile("(?m)^SIP/2\\.0 (\\d{3}) ").matcher(text);
        while (status.find()) {
            codes.add(status.group(1));
        }
        return codes.contains("200") ? "call" : String.join(" ", codes);
    }

    /** As {@link #answers(Socket, String)}, for answers to a datagram. */
    private static String answers(DatagramSocket socket, String expected) throws IOException {
        byte[] buffer = new byte[65535];
        List<String> codes = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_DEADLINE_MS);
        while (true) {
            String sofar = codes.contains("200") ? "call" : String.join(" ", codes);
            boolean waitingForExpected = !expected.isEmpty() && !sofar.equals(expected) && System.nanoTime() < deadline;
            socket.setSoTimeout(waitingForExpected ? (int) Math.max(1,
                    TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())) : QUIET_MS);
            try {
                DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
                socket.receive(packet);
                String text = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.ISO_8859_1);
                codes.add(text.startsWith("SIP/2.0 ") && text.length() >= 11 ? text.substring(8, 11) : "request");
            } catch (SocketTimeoutException e) {
                if (!waitingForExpected) {
                    return sofar;
                }
            }
        }
    }
}
