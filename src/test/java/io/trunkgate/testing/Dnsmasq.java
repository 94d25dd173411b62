package io.trunkgate.testing;

import io.trunkgate.redis.RedisServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real DNS server for tests: Debian's dnsmasq on 127.0.0.1 at a free port, answering only from the records
 * it is given ({@code --srv-host}, {@code --host-record}, {@code --naptr-record}...) for names under
 * {@value #DOMAIN}, with every answer's TTL {@code ttlSeconds}. Started and stopped by the test.
 */
public final class Dnsmasq implements AutoCloseable {

    public static final String DOMAIN = "trunkgate.test";

    private final Process process;
    private final int port;

    private Dnsmasq(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** A server on a free port; {@code records} are dnsmasq options, e.g. "--host-record=a.trunkgate.test,127.0.0.2". */
    public static Dnsmasq start(int ttlSeconds, String... records) throws IOException {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(RedisServerProcess.freePort(), ttlSeconds, records);
            } catch (IOException taken) {
                if (attempt == 5) {
                    throw taken;
                }
            }
        }
    }

    /** A server on {@code port} (where another one ran before, say); fails if the port is taken. */
    public static Dnsmasq startOn(int port, int ttlSeconds, String... records) throws IOException {
        // Debian installs it in /usr/sbin, which is not on every user's PATH
        String binary = java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/sbin/dnsmasq")) ? "/usr/sbin/dnsmasq"
                : "dnsmasq";
        List<String> command = new ArrayList<>(List.of(binary, "--keep-in-foreground", "--conf-file=/dev/null",
                "--port=" + port, "--listen-address=127.0.0.1", "--bind-interfaces", "--no-resolv", "--no-hosts",
                "--pid-file=", "--log-facility=-", "--local-ttl=" + ttlSeconds, "--local=/" + DOMAIN + "/"));
        command.addAll(List.of(records));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        // dnsmasq has bound its sockets when it says "started"; if it cannot, it says why and exits.
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        StringBuilder said = new StringBuilder();
        String line;
        while ((line = out.readLine()) != null) {
            said.append(line).append('\n');
            if (line.contains("started, version")) {
                Thread drain = new Thread(() -> drain(out), "dnsmasq-log");
                drain.setDaemon(true);
                drain.start();
                return new Dnsmasq(process, port);
            }
        }
        process.destroy();
        throw new IOException("dnsmasq did not start on port " + port + ": " + said);
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // dnsmasq's log, read so that it never blocks on a full pipe
            }
        } catch (IOException closed) {
            // the process ended
        }
    }

    public int port() {
        return port;
    }

    public InetSocketAddress address() {
        return new InetSocketAddress("127.0.0.1", port);
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UncheckedIOException(new IOException("interrupted while stopping dnsmasq"));
        }
    }
}
