package io.trunkgate.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.CaptureSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.testing.Await;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HEP packets as decoders that are not the gateway's read them, each sent over UDP by a real {@link HepCapture}:
 * hep-js (sipcapture's HEP library, the one Homer's Node.js tools decode with) reads every chunk; sngrep's HEP
 * listener, which reads chunks by position as Kamailio sends them and checks the password, writes what it took to
 * a pcap file that tshark dissects. Each test is skipped without its tools (.ci/run installs them: node and hep-js
 * under ~/.cache/trunkgate/hep-js, or where the hepjs.dir property says; sngrep and tshark).
 */
class HepDecodersTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static final long CAPTURE_ID = 4_000_000_000L;
    private static final String PASSWORD = "s3cret";

    @TempDir
    Path dir;
    private final ExecutorService thread = Executors.newCachedThreadPool();

    @AfterEach
    void stopThreads() {
        thread.shutdownNow();
    }

    @Test
    void hepJsReadsEveryChunk() throws Exception {
        Path hepJs = Path.of(System.getProperty("hepjs.dir",
                System.getProperty("user.home") + "/.cache/trunkgate/hep-js"), "node_modules");
        Assumptions.assumeTrue(onPath("node") && Files.isRegularFile(hepJs.resolve("hep-js/index.js")),
                "needs node and hep-js in " + hepJs + " (npm install --prefix " + hepJs.getParent() + " hep-js)");
        Path script = dir.resolve("hep-js-decode.js");
        try (var in = HepDecodersTest.class.getResourceAsStream("hep-js-decode.js")) {
            Files.copy(in, script);
        }
        ProcessBuilder node = new ProcessBuilder("node", script.toString()).redirectErrorStream(true);
        node.environment().put("NODE_PATH", hepJs.toString());
        Process process = node.start();
        try {
            Lines out = Lines.of(process);
            String first = out.next();
            assertNotNull(first, "hep-js decoder did not start");
            int port = Integer.parseInt(first.replace("listening ", "").trim());
            String invite = request("INVITE", "Call-ID: hep-one@127.0.0.11");
            String ok = "SIP/2.0 200 OK\r\nVia: SIP/2.0/TCP 192.0.2.44:40001;branch=z9hG4bK2\r\n"
                    + "From: <sip:a@x>;tag=1\r\nTo: <sip:b@y>;tag=2\r\ni: hep-two\r\nCSeq: 1 INVITE\r\n"
                    + "Content-Length: 0\r\n\r\n";
            String bye = request("BYE", "Call-ID: hep-three");
            try (HepCapture capture = HepCapture.start(collector(port), thread)) {
                capture.open();
                send(capture, invite, "127.0.0.11", 5062, "127.0.0.1", 5060, Transport.UDP, 1_700_000_000_123_456L);
                send(capture, ok, "10.1.2.3", 5060, "192.0.2.44", 40001, Transport.TCP, 1_700_000_001_000_001L);
                send(capture, bye, "2001:db8::1", 5061, "2001:db8::2", 45000, Transport.TLS, 1_700_000_002_999_999L);

                assertDecoded(out.json(), invite, 2, 17, 5062, 5060, 1_700_000_000L, 123_456, "hep-one@127.0.0.11");
                JsonNode first4 = out.json();
                assertDecoded(first4, ok, 2, 6, 5060, 40001, 1_700_000_001L, 1, "hep-two");
                JsonNode v6 = out.json();
                assertDecoded(v6, bye, 10, 6, 5061, 45000, 1_700_000_002L, 999_999, "hep-three");
                assertEquals("10.1.2.3", first4.at("/rcinfo/srcIp").asText());
                assertEquals("192.0.2.44", first4.at("/rcinfo/dstIp").asText());
            }
        } finally {
            process.destroy();
        }
    }

    @Test
    void sngrepTakesThePacketsAndTsharkReadsWhatItWrote() throws Exception {
        Assumptions.assumeTrue(onPath("sngrep") && onPath("tshark"), "needs sngrep and tshark");
        Path conf = Files.writeString(dir.resolve("sngreprc"),
                "set eep.listen.pass " + PASSWORD + "\nset eep.listen.uuid on\n");
        Path pcap = dir.resolve("taken.pcap");
        int port;
        try (DatagramSocket free = new DatagramSocket(0)) {
            port = free.getLocalPort();
        }
        Process sngrep = new ProcessBuilder("sngrep", "-F", "-f", conf.toString(), "-N", "-L",
                "udp:127.0.0.1:" + port, "-O", pcap.toString()).redirectErrorStream(true).start();
        DialogCount dialogs = DialogCount.of(sngrep);
        List<String> calls = List.of("sng-1@127.0.0.11", "sng-2@127.0.0.11", "sng-3@127.0.0.11");
        List<String> messages = new ArrayList<>();
        try {
            Await.atMost(WAIT).until(() -> dialogs.count() == 0);
            CaptureSettings wrongPassword = new CaptureSettings("127.0.0.1", port, CaptureSettings.Transport.UDP,
                    CAPTURE_ID, Optional.of("not-it"), 100);
            try (HepCapture refused = HepCapture.start(wrongPassword, thread)) {
                refused.open();
                send(refused, request("INVITE", "Call-ID: refused@127.0.0.11"), "127.0.0.11", 5062, "127.0.0.1",
                        5060, Transport.UDP, 1_700_000_000_000_000L);
                Await.atMost(WAIT).until(() -> refused.sent() == 1);
            }
            try (HepCapture capture = HepCapture.start(collector(port), thread)) {
                capture.open();
                for (int i = 0; i < calls.size(); i++) {
                    String invite = request("INVITE", "Call-ID: " + calls.get(i));
                    messages.add(invite);
                    send(capture, invite, "127.0.0.1" + (i + 1), 5062 + i, "127.0.0.1", 5060, Transport.UDP,
                            1_700_000_010_000_000L + i * 1_234_567L);
                }
                Await.atMost(WAIT).until(dialogs::count, n -> n == calls.size());
            }
        } finally {
            sngrep.destroy();
            sngrep.waitFor(10, TimeUnit.SECONDS);
        }
        Process tshark = new ProcessBuilder("tshark", "-r", pcap.toString(), "-T", "fields", "-E", "separator=|",
                "-e", "frame.time_epoch", "-e", "ip.src", "-e", "ip.dst", "-e", "udp.srcport", "-e", "udp.dstport",
                "-e", "sip.Call-ID", "-e", "udp.payload").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        List<String> rows = new String(tshark.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).lines()
                .toList();
        tshark.waitFor(30, TimeUnit.SECONDS);
        assertEquals(calls.size(), rows.size(), "the packet with the wrong password is not taken: " + rows);
        for (int i = 0; i < calls.size(); i++) {
            String[] fields = rows.get(i).split("\\|", -1);
            long micros = 1_700_000_010_000_000L + i * 1_234_567L;
            assertEquals(String.format("%d.%06d000", micros / 1_000_000, micros % 1_000_000), fields[0], rows.get(i));
            assertEquals("127.0.0.1" + (i + 1), fields[1]);
            assertEquals("127.0.0.1", fields[2]);
            assertEquals(String.valueOf(5062 + i), fields[3]);
            assertEquals("5060", fields[4]);
            assertEquals(calls.get(i), fields[5]);
            assertEquals(HexFormat.of().formatHex(messages.get(i).getBytes(StandardCharsets.US_ASCII)),
                    fields[6].replace(":", ""));
        }
    }

    private static CaptureSettings collector(int port) {
        return new CaptureSettings("127.0.0.1", port, CaptureSettings.Transport.UDP, CAPTURE_ID,
                Optional.of(PASSWORD), 100);
    }

    private static String request(String method, String callIdLine) {
        return method + " sip:+15550001@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.11:5062;branch=z9hG4bK1\r\n"
                + "Max-Forwards: 70\r\nFrom: <sip:caller@127.0.0.11>;tag=1\r\nTo: <sip:+15550001@127.0.0.1>\r\n"
                + callIdLine + "\r\nCSeq: 1 " + method + "\r\nContent-Length: 0\r\n\r\n";
    }

    private static void send(Capture capture, String message, String source, int sourcePort, String destination,
                             int destinationPort, Transport transport, long epochMicros) {
        byte[] bytes = message.getBytes(StandardCharsets.US_ASCII);
        capture.message(bytes, 0, bytes.length, new InetSocketAddress(source, sourcePort),
                new InetSocketAddress(destination, destinationPort), transport, epochMicros);
    }

    private static void assertDecoded(JsonNode decoded, String message, int family, int protocol, int sourcePort,
                                      int destinationPort, long seconds, int micros, String callId) {
        assertNotNull(decoded, "hep-js printed nothing");
        assertFalse(decoded.has("error"), decoded.toString());
        JsonNode info = decoded.get("rcinfo");
        assertEquals(family, info.get("protocolFamily").asInt(), decoded.toString());
        assertEquals(protocol, info.get("protocol").asInt());
        assertEquals(sourcePort, info.get("srcPort").asInt());
        assertEquals(destinationPort, info.get("dstPort").asInt());
        assertEquals(seconds, info.get("timeSeconds").asLong());
        assertEquals(micros, info.get("timeUseconds").asInt());
        assertEquals(1, info.get("payloadType").asInt(), "SIP");
        assertEquals(CAPTURE_ID, info.get("captureId").asLong());
        assertEquals(PASSWORD, info.get("capturePass").asText());
        assertEquals(callId, info.get("correlation_id").asText());
        assertEquals(message, decoded.get("payload").asText());
        if (family == 2) {
            assertEquals(message.contains("hep-one") ? "127.0.0.11" : "10.1.2.3", info.get("srcIp").asText());
        }
    }

    private static boolean onPath(String command) {
        for (String entry : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(entry, command))) {
                return true;
            }
        }
        return false;
    }

    /** A process's output, line by line, as it comes. */
    private record Lines(BlockingQueue<String> lines) {
        static Lines of(Process process) {
            BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    in.lines().forEach(lines::add);
                } catch (IOException | RuntimeException e) {
                    // the process ended
                }
            }, "hep-js-output");
            reader.setDaemon(true);
            reader.start();
            return new Lines(lines);
        }

        String next() throws InterruptedException {
            return lines.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }

        JsonNode json() throws Exception {
            String line = next();
            return line == null ? null : JSON.readTree(line);
        }
    }

    /** The "Dialog count: N" sngrep prints, again and again, without its interface. */
    private record DialogCount(AtomicInteger last) {
        private static final Pattern COUNT = Pattern.compile("Dialog count: (\\d+)");

        static DialogCount of(Process process) {
            AtomicInteger last = new AtomicInteger(-1);
            Thread reader = new Thread(() -> {
                try (Reader in = new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)) {
                    StringBuilder line = new StringBuilder();
                    for (int c = in.read(); c >= 0; c = in.read()) {
                        if (c == '\r' || c == '\n') {
                            Matcher m = COUNT.matcher(line);
                            if (m.find()) {
                                last.set(Integer.parseInt(m.group(1)));
                            }
                            line.setLength(0);
                        } else {
                            line.append((char) c);
                        }
                    }
                } catch (IOException e) {
                    // the process ended
                }
            }, "sngrep-output");
            reader.setDaemon(true);
            reader.start();
            return new DialogCount(last);
        }

        int count() {
            return last.get();
        }
    }
}
