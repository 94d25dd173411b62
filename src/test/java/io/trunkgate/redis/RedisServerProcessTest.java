package io.trunkgate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.Await;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The embedded redis-server leaves nothing in the temporary directory once it is stopped, or its JVM is gone. */
class RedisServerProcessTest {

    @Test
    void closeStopsTheServerAndRemovesItsDirectory() {
        RedisServerProcess server = RedisServerProcess.start();
        Path dir = server.dir();
        assertTrue(Files.isDirectory(dir), dir.toString());
        assertTrue(dir.getFileName().toString().startsWith("trunkgate-redis-"), dir.toString());

        server.close();

        assertFalse(server.isRunning());
        assertFalse(Files.exists(dir), dir + " left behind");
    }

    @Test
    void restartAfterCloseRunsAgainAndTheNextCloseRemovesTheDirectoryAgain() {
        RedisServerProcess server = RedisServerProcess.start();
        server.close();
        server.restart();
        try {
            assertTrue(server.isRunning());
            assertTrue(Files.isDirectory(server.dir()));
        } finally {
            server.close();
        }
        assertFalse(Files.exists(server.dir()));
    }

    @Test
    void aJvmKilledWithSigkillLeavesNeitherTheServerNorItsDirectory() throws Exception {
        Process jvm = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), ServerOwner.class.getName())
                .redirectErrorStream(true).start();
        Path dir;
        List<ProcessHandle> servers;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(jvm.getInputStream(), StandardCharsets.UTF_8))) {
            String line = out.readLine();
            while (line != null && !line.startsWith("dir=")) {
                line = out.readLine();
            }
            assertTrue(line != null && line.startsWith("dir="), "the child JVM said: " + line);
            dir = Path.of(line.substring("dir=".length()));
            assertTrue(Files.isDirectory(dir));
            servers = jvm.descendants().toList();
            assertFalse(servers.isEmpty());

            jvm.destroyForcibly();   // SIGKILL: no shutdown hook, no close()
            assertTrue(jvm.waitFor(30, TimeUnit.SECONDS));
        }

        assertEquals(true, Await.until(Duration.ofSeconds(20), () -> !Files.exists(dir), gone -> gone),
                dir + " left behind");
        assertEquals(true, Await.until(Duration.ofSeconds(20),
                () -> servers.stream().noneMatch(ProcessHandle::isAlive), gone -> gone), "redis-server outlived its JVM");
    }

    /** Run in a child JVM: starts a server, prints its directory, then waits to be killed. */
    public static final class ServerOwner {
        public static void main(String[] args) throws InterruptedException {
            RedisServerProcess server = RedisServerProcess.start();
            System.out.println("dir=" + server.dir());
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /**
     * Free ports come from below the kernel's ephemeral range, where no outgoing connection takes them between
     * the pick and the bind, each once per JVM, and each free for TCP and UDP (a SIP listener binds both).
     */
    @Test
    void freePortsAreBelowTheEphemeralRangeDistinctAndFreeForTcpAndUdp() throws Exception {
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            int port = RedisServerProcess.freePort();
            assertTrue(port >= 1024 && port < 32768, "port " + port);
            assertTrue(ports.add(port), "handed out twice: " + port);
            try (ServerSocket tcp = new ServerSocket(port); DatagramSocket udp = new DatagramSocket(port)) {
                assertEquals(port, udp.getLocalPort());
            }
        }
    }
}
