package io.trunkgate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A redis-server child process on 127.0.0.1 that never outlives this JVM.
 *
 * <p>The server runs under a small shell that waits on our stdin pipe: when the JVM exits for any reason,
 * even SIGKILL, the pipe closes and the shell kills the server and removes its temporary directory, so no stray
 * process or {@code trunkgate-redis-*} directory is left behind. {@link #close()} removes the directory too.
 */
public final class RedisServerProcess implements AutoCloseable {

    private static final String GUARD = "\"$0\" \"$@\" & p=$!; read _; kill $p 2>/dev/null; wait $p;"
            + " rm -rf -- \"$TRUNKGATE_REDIS_DIR\"";
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MAX_READY_BACKOFF = Duration.ofMillis(200);
    /** The server runs as the guard shell's child, which the process table shows only some moments after the start. */
    private static final Duration EXIT_VISIBLE_AFTER = Duration.ofMillis(500);
    private static final int FIRST_FREE_PORT = 20_000;
    private static final int FREE_PORTS = 32_768 - FIRST_FREE_PORT;
    private static final int FREE_PORT_ATTEMPTS = 1_000;
    private static final Set<Integer> HANDED_OUT = ConcurrentHashMap.newKeySet();

    private Path binary;
    private final int port;
    private final Path dir;
    private final Optional<Path> configFile;
    private final List<String> extraArgs;
    private Process guard;

    private RedisServerProcess(Path binary, int port, Path dir, Optional<Path> configFile, List<String> extraArgs) {
        this.binary = binary;
        this.port = port;
        this.dir = dir;
        this.configFile = configFile;
        this.extraArgs = List.copyOf(extraArgs);
    }

    /** Starts a server on {@code port} (0 picks a free one), keeping nothing on disk, and waits until it answers. */
    public static RedisServerProcess start(int port, List<String> extraArgs) {
        return start(port, Optional.empty(), extraArgs);
    }

    /**
     * Starts a server whose settings come from {@code configFile} (passed first, as redis-server wants it,
     * e.g. for sentinel mode) plus {@code extraArgs}.
     */
    public static RedisServerProcess start(int port, Optional<Path> configFile, List<String> extraArgs) {
        Path dir;
        try {
            dir = Files.createTempDirectory("trunkgate-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server", e);
        }
        RedisServerProcess server = null;
        try {
            server = new RedisServerProcess(RedisBinary.locate(dir), port == 0 ? freePort() : port, dir, configFile,
                    extraArgs);
            server.launch();
            return server;
        } catch (RuntimeException e) {
            // nothing of a server that did not start stays behind: its guard shell, its process, its directory
            if (server != null) {
                server.kill();
            }
            deleteDir(dir);
            throw e;
        }
    }

    public static RedisServerProcess start() {
        return start(0, List.of());
    }

    public int port() {
        return port;
    }

    public String address() {
        return "redis://127.0.0.1:" + port;
    }

    public Path dir() {
        return dir;
    }

    /** Kills the server without warning (SIGKILL), as a crash would. */
    public synchronized void kill() {
        if (guard != null) {
            guard.descendants().forEach(ProcessHandle::destroyForcibly);
            guard.destroyForcibly();
            waitFor(guard);
            guard = null;
        }
    }

    /** Starts the server again on the same port after {@link #kill()} or {@link #close()}. */
    public synchronized void restart() {
        kill();
        launch();
    }

    public synchronized boolean isRunning() {
        return guard != null && guard.isAlive() && guard.descendants().anyMatch(ProcessHandle::isAlive);
    }

    /** Stops the server, waits for it to exit and removes its directory. */
    @Override
    public synchronized void close() {
        if (guard != null) {
            try {
                guard.getOutputStream().close();
            } catch (IOException ignored) {
                // the guard shell is gone already; destroyForcibly below covers it
            }
            if (!waitFor(guard)) {
                kill();
            }
            guard = null;
        }
        deleteDir();
    }

    /** The guard shell removes the directory when it ends normally; this covers a guard that was killed. */
    private void deleteDir() {
        deleteDir(dir);
    }

    private static void deleteDir(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + dir, e);
        }
    }

    private synchronized void launch() {
        try {
            Files.createDirectories(dir);   // close() removed it, and restart() starts again
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        if (binary.startsWith(dir) && !Files.exists(binary)) {
            binary = RedisBinary.locate(dir);   // the bundled binary went with the directory
        }
        List<String> command = new ArrayList<>(List.of("sh", "-c", GUARD, binary.toString()));
        configFile.ifPresent(file -> command.add(file.toString()));
        command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString()));
        command.addAll(extraArgs);
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().put("TRUNKGATE_REDIS_DIR", dir.toString());
            guard = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + binary, e);
        }
        awaitReady();
    }

    /**
     * Waits until the server answers PING, asking again after 2 ms and then twice as long each time, at most
     * {@link #MAX_READY_BACKOFF} apart: a server that starts in 5 ms is seen at once, one that takes seconds on a
     * busy machine is not asked 50 times a second meanwhile. (Its "Ready to accept connections" line goes to its
     * log file; reading it from a pipe instead would need a thread for the server's whole life.)
     */
    private void awaitReady() {
        long started = System.nanoTime();
        long deadline = started + READY_TIMEOUT.toNanos();
        Duration backoff = Duration.ofMillis(2);
        while (System.nanoTime() < deadline) {
            if (System.nanoTime() - started > EXIT_VISIBLE_AFTER.toNanos() && !isRunning()) {
                throw new IllegalStateException("redis-server exited at start; the end of its log: " + logTail());
            }
            if (answersPing()) {
                return;
            }
            try {
                Thread.sleep(backoff.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for redis-server", e);
            }
            Duration doubled = backoff.multipliedBy(2);
            backoff = doubled.compareTo(MAX_READY_BACKOFF) < 0 ? doubled : MAX_READY_BACKOFF;
        }
        kill();
        throw new IllegalStateException("redis-server on port " + port + " did not answer within " + READY_TIMEOUT);
    }

    /** The last lines of the server's log, which goes away with its directory. */
    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8);
            return String.join(" | ", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    private boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(7);
            return new String(reply, StandardCharsets.US_ASCII).equals("+PONG\r\n");
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean waitFor(Process process) {
        try {
            return process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * A port free for TCP and UDP on every address when it is picked, at random below Linux's default ephemeral
     * range (32768-60999): a port of that range may be taken, before whoever picked it binds it, by an outgoing
     * connection of any process. This JVM hands out each port once.
     */
    public static int freePort() {
        for (int attempt = 0; attempt < FREE_PORT_ATTEMPTS; attempt++) {
            int port = FIRST_FREE_PORT + ThreadLocalRandom.current().nextInt(FREE_PORTS);
            if (HANDED_OUT.add(port) && bindable(port)) {
                return port;
            }
        }
        throw new UncheckedIOException(new IOException("no free port from " + FIRST_FREE_PORT + " to "
                + (FIRST_FREE_PORT + FREE_PORTS - 1) + " after " + FREE_PORT_ATTEMPTS + " attempts"));
    }

    private static boolean bindable(int port) {
        try (ServerSocket tcp = new ServerSocket(port); DatagramSocket udp = new DatagramSocket(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }
}
