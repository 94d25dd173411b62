package io.trunkgate.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * baresip, the softphone, as a caller over UDP, TCP or TLS: started with its own configuration in a test's directory
 * (a client certificate and the CA to trust, digest credentials, or neither for a peer known by its address; G.711 and a sine wave as its microphone, no sound
 * card), driven through its ctrl_tcp module (JSON in netstrings: commands in, call events out).
 */
public final class Baresip implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Process process;
    private final Socket control;
    private final BlockingQueue<JsonNode> events = new LinkedBlockingQueue<>();
    private final AtomicInteger tokens = new AtomicInteger();
    private final Path log;

    private Baresip(Process process, Socket control, Path log) {
        this.process = process;
        this.control = control;
        this.log = log;
        Thread reader = new Thread(this::readEvents, "baresip-events");
        reader.setDaemon(true);
        reader.start();
    }

    /** Whether baresip is on the PATH. */
    public static boolean installed() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
            if (Files.isExecutable(Path.of(dir, "baresip"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * baresip on {@code host}, its account {@code user} at the gateway reached over TLS, presenting
     * {@code identity} and trusting {@code ca}.
     */
    public static Baresip start(Path dir, String host, String user, TestCertificates.Issued identity,
                                TestCertificates.Issued ca) throws Exception {
        Path home = Files.createDirectories(dir.resolve("baresip-" + host));
        Path certificate = home.resolve("client.pem");
        Files.writeString(certificate, Files.readString(identity.certificateFile()) + Files.readString(identity.keyFile()));
        return start(home, host, List.of("sip_certificate " + certificate, "sip_cafile " + ca.certificateFile()),
                "<sip:" + user + "@" + host + ";transport=tls>;regint=0");
    }

    /**
     * baresip on {@code host} calling over {@code transport} ("udp" or "tcp"), its account {@code user} known to the
     * gateway by its address alone.
     */
    public static Baresip start(Path dir, String host, String user, String transport) throws Exception {
        Path home = Files.createDirectories(dir.resolve("baresip-" + host));
        return start(home, host, List.of(), "<sip:" + user + "@" + host + ";transport=" + transport + ">;regint=0");
    }

    /**
     * baresip on {@code host} calling over UDP, its account {@code user} with the digest credentials
     * {@code user}/{@code password} it answers any challenge with (libre 1.x: MD5 only, one challenge per realm).
     */
    public static Baresip startWithPassword(Path dir, String host, String user, String password) throws Exception {
        Path home = Files.createDirectories(dir.resolve("baresip-" + host));
        return start(home, host, List.of(), "<sip:" + user + "@" + host + ";transport=udp>;auth_user=" + user
                + ";auth_pass=" + password + ";regint=0");
    }

    private static Baresip start(Path home, String host, List<String> transportLines, String account)
            throws Exception {
        int controlPort = SipSockets.freePort();
        List<String> config = new java.util.ArrayList<>(List.of("sip_listen " + host + ":" + SipSockets.freePort()));
        config.addAll(transportLines);
        config.addAll(List.of(
                "module_path /usr/lib/baresip/modules",
                "module g711.so",
                "module ausine.so",
                "module aufile.so",
                "audio_source ausine,440",
                "audio_player aufile," + home.resolve("heard.wav"),
                "module_app account.so",
                "module_app menu.so",
                "module_app ctrl_tcp.so",
                "ctrl_tcp_listen 127.0.0.1:" + controlPort, ""));
        Files.writeString(home.resolve("config"), String.join("\n", config));
        Files.writeString(home.resolve("accounts"), account + "\n");
        Path log = home.resolve("baresip.log");
        Process process = new ProcessBuilder("baresip", "-f", home.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Socket control = Await.until(Duration.ofSeconds(10), () -> connect(controlPort), socket -> socket != null);
        if (control == null) {
            process.destroyForcibly();
            throw new IllegalStateException("baresip did not open its control port: " + Files.readString(log));
        }
        return new Baresip(process, control, log);
    }

    private static Socket connect(int port) {
        try {
            return new Socket("127.0.0.1", port);
        } catch (IOException notYet) {
            return null;
        }
    }

    /** Sends a ctrl_tcp command, say "dial" with a URI, "hangup", "reinvite". */
    public void command(String command, String params) throws IOException {
        String body = JSON.writeValueAsString(java.util.Map.of("command", command, "params", params,
                "token", Integer.toString(tokens.incrementAndGet())));
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        OutputStream out = control.getOutputStream();
        synchronized (out) {
            out.write((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes);
            out.write(',');
            out.flush();
        }
    }

    /** Waits for a call event of {@code type} (CALL_ESTABLISHED, CALL_CLOSED, CALL_RINGING ...), skipping others. */
    public JsonNode awaitEvent(String type, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            JsonNode event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (event == null || type.equals(event.path("type").asText())) {
                return event;
            }
        }
    }

    /** What baresip wrote, for a failing test's message. */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void readEvents() {
        try (InputStream in = control.getInputStream()) {
            while (true) {
                int length = 0;
                for (int c = in.read(); c != ':'; c = in.read()) {
                    if (c < 0) {
                        return;
                    }
                    length = length * 10 + (c - '0');
                }
                ByteArrayOutputStream body = new ByteArrayOutputStream(length);
                for (int i = 0; i < length; i++) {
                    int c = in.read();
                    if (c < 0) {
                        return;
                    }
                    body.write(c);
                }
                in.read(); // the netstring's closing comma
                JsonNode message = JSON.readTree(body.toByteArray());
                if (message.path("event").asBoolean()) {
                    events.add(message);
                }
            }
        } catch (IOException closed) {
            // baresip stopped
        }
    }

    @Override
    public void close() {
        try {
            command("quit", "");
        } catch (IOException gone) {
            // already stopped
        }
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            control.close();
        } catch (InterruptedException | IOException e) {
            process.destroyForcibly();
        }
    }
}
