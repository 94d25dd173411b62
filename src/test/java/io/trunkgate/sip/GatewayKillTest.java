package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.RedisBackend;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Response;
import org.junit.jupiter.api.Test;

/**
 * kill -9 of one gateway (a separate JVM) with calls up: its leases lapse after the lease time and the survivor
 * reclaims the capacity, while the survivor's own call, older than the lease time by then, keeps its lease.
 */
class GatewayKillTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;
    private static final Duration LEASE = Duration.ofSeconds(2);

    @Test
    void aKilledGatewaysLeasesAreReclaimedAndALiveLongCallKeepsItsOwn() throws Exception {
        String prefix = "tg-kill-" + UUID.randomUUID();
        SipAgent caller = SipAgent.start("127.0.0.71");
        SipAgent carrier = SipAgent.start("127.0.0.72");
        Path dir = Files.createTempDirectory("trunkgate-kill-");
        int deadSip = RedisServerProcess.freePort();
        int deadAdmin = RedisServerProcess.freePort();
        Process dead = null;
        Gateway survivor = null;
        try {
            String redis = StandaloneRedis.shared().server().address();
            writeConfig(dir, redis, prefix, deadSip, deadAdmin, carrier);
            dead = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), "io.trunkgate.cli.Main", "run",
                    "--config", dir.resolve("gateway.conf").toString())
                    .redirectErrorStream(true).redirectOutput(dir.resolve("gateway.log").toFile()).start();

            RedisSettings base = RedisBackend.settings(RedisMode.STANDALONE, List.of(redis));
            TestConfigs config = new TestConfigs(new RedisSettings(base.mode(), base.addresses(), base.sentinelMaster(),
                    base.password(), base.timeout(), prefix, 0), RedisServerProcess.freePort())
                    .instance("gw-survivor").leaseTime(LEASE)
                    .peer("acme", "127.0.0.71").maxConcurrent("acme", 3)
                    .carrier("a", carrier, 1000, Duration.ofSeconds(5), Duration.ofSeconds(5))
                    .route("", "a");
            survivor = Gateway.start(config.build());
            awaitReady(deadAdmin, dead, dir);

            // The survivor's call is up before the dead gateway's calls: when their leases have lapsed, it has
            // lasted longer than the lease time, and only the survivor's renewals can have kept it counted.
            answered(caller, config.sipPort(), "+100");
            answered(caller, deadSip, "+101");
            answered(caller, deadSip, "+102");
            assertEquals(503, status(caller, config.sipPort(), "+103"), "3 calls up: the cap");

            dead.destroyForcibly();
            assertTrue(dead.waitFor(30, TimeUnit.SECONDS));

            AdminClient admin = new AdminClient(survivor.adminAddress());
            assertEquals(1, awaitPeerCalls(admin, 1), "the killed gateway's two leases were reclaimed");
            answered(caller, config.sipPort(), "+104");
            answered(caller, config.sipPort(), "+105");
            assertEquals(503, status(caller, config.sipPort(), "+106"), "the survivor's long call still counts");
        } finally {
            if (dead != null) {
                dead.destroyForcibly().waitFor();
            }
            if (survivor != null) {
                survivor.close();
            }
            caller.close();
            carrier.close();
        }
    }

    private static void writeConfig(Path dir, String redis, String prefix, int sipPort, int adminPort, SipAgent carrier)
            throws Exception {
        Files.createDirectories(dir.resolve("peers"));
        Files.createDirectories(dir.resolve("groups"));
        Files.createDirectories(dir.resolve("carriers"));
        Files.writeString(dir.resolve("gateway.conf"), String.join("\n",
                "instance-id = gw-dead",
                // A warm-up, or the cold JVM's first calls are shed as overload; a shorter one than the default
                // 30 s, which a busy machine's compiler takes in full.
                "sip.warm-up.max-time = 10s",
                "sip.listeners = [{ transport = udp, host = \"127.0.0.1\", port = " + sipPort + " }]",
                "redis { mode = standalone, addresses = [\"" + redis + "\"], timeout = 2s, key-prefix = \"" + prefix + "\" }",
                "admission.lease-time = " + LEASE.toMillis() + "ms",
                "admin { host = \"127.0.0.1\", port = " + adminPort + " }",
                "peers-dir = peers", "groups-dir = groups", "carriers-dir = carriers", "routes-file = routes.conf", ""));
        Files.writeString(dir.resolve("peers/acme.conf"),
                "id = acme\nmatch.sources = [\"127.0.0.71\"]\nmax-concurrent = 3\n");
        Files.writeString(dir.resolve("carriers/a.conf"),
                "id = a\nuri = \"" + carrier.uri() + "\"\ncps = 1000\nmax-wait = 5s\nanswer-timeout = 5s\n");
        Files.writeString(dir.resolve("routes.conf"), "routes = [{ prefix = \"\", carriers = [a] }]\n");
    }

    /**
     * Until the gateway JVM's own admin server says ready. Its log must name the port first: the port was only
     * free when the test picked it, and while that JVM warms up, another server (the survivor's admin server, on
     * a port the system picked) may take it and answer /health itself.
     */
    private static void awaitReady(int adminPort, Process gateway, Path dir) throws Exception {
        AdminClient admin = new AdminClient(new InetSocketAddress(GW, adminPort));
        String listening = "admin HTTP on http://" + GW + ":" + adminPort + "/";
        boolean ready = Await.until(Duration.ofSeconds(90), () -> !gateway.isAlive()
                        || Files.readString(dir.resolve("gateway.log")).contains(listening) && isReady(admin), up -> up)
                && gateway.isAlive();
        if (!ready) {
            throw new AssertionError("the gateway JVM did not become ready: " + Files.readString(dir.resolve("gateway.log")));
        }
    }

    private static boolean isReady(AdminClient admin) throws Exception {
        try {
            return admin.get("/health").status() == 200;
        } catch (java.io.IOException notYet) {
            return false; // not listening yet
        }
    }

    private static void answered(SipAgent caller, int port, String number) throws Exception {
        SipAgent.Call call = caller.invite(GW, port, number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final response for " + number);
        assertEquals(200, answer.getStatusCode(), number);
        call.ack();
    }

    private static int status(SipAgent caller, int port, String number) throws Exception {
        Response answer = caller.invite(GW, port, number).awaitFinal(WAIT_MS);
        assertNotNull(answer, "no final response for " + number);
        return answer.getStatusCode();
    }

    private static long awaitPeerCalls(AdminClient admin, long expected) {
        return Await.until(Duration.ofSeconds(20), () -> acmeCalls(admin), calls -> calls == expected);
    }

    private static long acmeCalls(AdminClient admin) throws Exception {
        for (JsonNode peer : admin.get("/api/peers").json().get("peers")) {
            if (peer.get("id").asText().equals("acme")) {
                return peer.get("concurrent").get(0).get("calls").asLong();
            }
        }
        return -1;
    }
}
