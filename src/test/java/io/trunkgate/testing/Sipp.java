package io.trunkgate.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * One SIPp process, as a caller (uac) or a carrier (uas), run from a directory of its own under a test's directory
 * (SIPp writes its logs into its working directory). Every run has SIPp's own time limit ({@code -timeout}, counted
 * as an error) and is waited for with a timeout; a test reads {@link #awaitOutcome}: "" when every call of the
 * scenario completed, else what SIPp reported.
 */
public final class Sipp implements AutoCloseable {

    /** SIPp's own limit for a run; a test waits a little longer for its exit. */
    private static final Duration SIPP_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path dir;
    private final String name;

    private Sipp(Process process, Path dir, String name) {
        this.process = process;
        this.dir = dir;
        this.name = name;
    }

    /** Whether sipp is on the PATH. */
    public static boolean installed() {
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(p -> Files.isExecutable(Path.of(p, "sipp")));
    }

    /** The scenario {@code /sipp/<name>} of the test resources, copied into {@code dir}. */
    public static Path resource(Path dir, String name) throws IOException {
        Path file = dir.resolve(name);
        try (InputStream in = Sipp.class.getResourceAsStream("/sipp/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource /sipp/" + name);
            }
            Files.copy(in, file);
        }
        return file;
    }

    /** The scenario {@code bench/sipp/<name>} the bench scripts run, e.g. uac.xml and uas.xml. */
    public static Path bench(String name) {
        return Path.of("bench", "sipp", name).toAbsolutePath();
    }

    /**
     * Starts SIPp in {@code dir/name} with scenario {@code scenario} on {@code host:port} (transport
     * {@code mode}: "u1" UDP, "t1" TCP), then {@code args} (a uac's remote address, -m, -s, -key ...).
     */
    public static Sipp start(Path dir, String name, Path scenario, String mode, String host, int port,
                             String... args) throws IOException {
        Path home = Files.createDirectories(dir.resolve(name));
        List<String> command = new ArrayList<>(List.of("sipp", "-sf", scenario.toString(), "-t", mode,
                "-i", host, "-p", Integer.toString(port), "-nostdin", "-timeout", SIPP_TIMEOUT.toSeconds() + "s",
                "-timeout_error", "-trace_err"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true)
                .redirectOutput(home.resolve("sipp.out").toFile()).start();
        return new Sipp(process, home, name);
    }

    /** Starts a carrier on {@code host:port} and waits until its socket is bound: true if it is within 10 s. */
    public static Sipp startCarrier(Path dir, String name, Path scenario, String mode, String host, int port,
                                    String... args) throws IOException {
        Sipp carrier = start(dir, name, scenario, mode, host, port, args);
        if (!Await.until(Duration.ofSeconds(10), () -> !carrier.process.isAlive() || bound(host, port, mode),
                ready -> ready) || !carrier.process.isAlive()) {
            String outcome = carrier.awaitOutcome(Duration.ofSeconds(1));
            carrier.close();
            throw new IllegalStateException(name + " did not bind " + host + ":" + port + ": " + outcome);
        }
        return carrier;
    }

    /**
     * Waits at most SIPp's own limit and a little more for SIPp to exit: "" if every call completed, else the
     * exit status with SIPp's error log and output. A SIPp still running then is killed and reported so.
     */
    public String awaitOutcome(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return name + " still running after " + timeout + ": " + logs();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return name + " interrupted";
        }
        return process.exitValue() == 0 ? "" : name + " exit " + process.exitValue() + ": " + logs();
    }

    /** {@link #awaitOutcome} within SIPp's own limit and 15 s more. */
    public String awaitOutcome() {
        return awaitOutcome(SIPP_TIMEOUT.plusSeconds(15));
    }

    private String logs() {
        StringBuilder text = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.sorted().toList()) {
                text.append("\n--- ").append(file.getFileName()).append('\n').append(Files.readString(file));
            }
        } catch (IOException e) {
            text.append(e);
        }
        return text.toString();
    }

    /** Whether a socket of {@code mode} is bound to {@code host:port}: a UDP socket, or a listening TCP one. */
    private static boolean bound(String host, int port, String mode) throws IOException {
        boolean tcp = mode.startsWith("t");
        InetAddress address = InetAddress.getByName(host);
        for (String table : tcp ? List.of("/proc/net/tcp", "/proc/net/tcp6") : List.of("/proc/net/udp",
                "/proc/net/udp6")) {
            try (Stream<String> lines = Files.lines(Path.of(table))) {
                if (lines.skip(1).map(line -> line.trim().split("\\s+"))
                        .anyMatch(f -> (!tcp || f[3].equals("0A")) && local(f[1], address, port))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Whether a /proc/net address (hex, each 32-bit word in host order: little-endian here) is this one. */
    private static boolean local(String field, InetAddress address, int port) {
        String[] parts = field.split(":");
        if (Integer.parseInt(parts[1], 16) != port) {
            return false;
        }
        byte[] bytes = new byte[parts[0].length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int i = 0; i < 4; i++) {
                int at = word * 8 + (3 - i) * 2;
                bytes[word * 4 + i] = (byte) Integer.parseInt(parts[0].substring(at, at + 2), 16);
            }
        }
        try {
            return InetAddress.getByAddress(bytes).equals(address);
        } catch (IOException e) {
            throw new IllegalStateException(field, e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }
}
