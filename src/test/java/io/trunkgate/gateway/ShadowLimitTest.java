package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.ConfigLoader;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.StandaloneRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A shadow limit on a running gateway, from real files, with real SIP agents and a real Redis: a peer with a
 * shadow limit of 10/s offered 30/s has every call admitted, and the calls over the limit marked in their records
 * and counted in trunkgate_calls_would_refuse_total; a live reload to {@code enforce} refuses those calls. The
 * expected counts are computed from the times the test sent each INVITE, through the same exact window, one
 * timeline for both phases (the shadow window counts what the enforced one would): the gateway sees the calls a
 * few milliseconds later, which may move a call across a window's edge, so the counts are compared within a margin
 * far narrower than what a broken shadow window would give (none counted, or every call counted).
 */
class ShadowLimitTest {

    private static final String GW = "127.0.0.1";
    private static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static final int MAX = 10;
    private static final int RATE = 30;
    private static final int CALLS = 60;
    private static final String LIMIT = "peer:acme 10/1000ms";

    @TempDir
    Path dir;

    private final SipAgents agents = new SipAgents();
    private Gateway gateway;

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        agents.close();
    }

    private void write(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private void writePeer(String mode) throws Exception {
        write("peers/acme.conf", "id = acme\nmatch.sources = [\"127.0.0.151\"]\n"
                + "limits = [ { window = 1s, max = " + MAX + ", mode = " + mode + " } ]\n");
    }

    /** One INVITE every 1/{@link #RATE} s; the time each was sent (nanoTime) in {@code sentAt}. */
    private List<SipAgent.Call> offer(SipAgent caller, int sipPort, List<Long> sentAt) throws Exception {
        List<SipAgent.Call> calls = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < CALLS; i++) {
            long due = start + i * TimeUnit.SECONDS.toNanos(1) / RATE;
            while (System.nanoTime() < due) {
                LockSupport.parkNanos(due - System.nanoTime());
            }
            sentAt.add(System.nanoTime());
            calls.add(caller.invite(GW, sipPort, "+1" + sentAt.size()));
        }
        return calls;
    }

    /** Which calls an exact window of {@link #MAX} per second, enforced, would refuse, on the test's clock. */
    private static List<Boolean> overTheWindow(List<Long> sentAt) {
        List<Long> admitted = new ArrayList<>();
        List<Boolean> over = new ArrayList<>();
        for (long t : sentAt) {
            long inWindow = admitted.stream().filter(a -> a >= t - WINDOW_NANOS).count();
            over.add(inWindow >= MAX);
            if (inWindow < MAX) {
                admitted.add(t);
            }
        }
        return over;
    }

    private static long count(List<Boolean> flags, int from, int to) {
        return flags.subList(from, to).stream().filter(b -> b).count();
    }

    private static void assertNear(long expected, long actual, String what) {
        long margin = 3 + expected / 10;
        assertTrue(Math.abs(actual - expected) <= margin,
                what + ": " + actual + ", expected " + expected + " +- " + margin);
    }

    private List<JsonNode> records(Path file, int count) throws Exception {
        List<String> lines = Await.until(Duration.ofSeconds(10),
                () -> Files.exists(file) ? Files.readAllLines(file) : List.<String>of(), l -> l.size() >= count);
        assertEquals(count, lines.size(), "one record per call");
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> records = new ArrayList<>();
        for (String line : lines) {
            records.add(json.readTree(line));
        }
        return records;
    }

    @Test
    void aShadowLimitAdmitsAllAndCountsWhatItWouldRefuseAndEnforcedByAReloadItRefusesThem() throws Exception {
        SipAgent caller = agents.start("127.0.0.151");
        SipAgent carrier = agents.start("127.0.0.152");
        // (overload shedding is off: on a busy machine it would answer some of these INVITEs 503 before admission)
        // a final failure the gateway does not fail over on: each call ends at once and its record is written then
        carrier.behave(SipAgent.Behaviour.BUSY_486);
        int sipPort = RedisServerProcess.freePort();
        Path recordsFile = dir.resolve("calls.jsonl");
        write("gateway.conf", """
                instance-id = shadow-test
                shutdown.drain-timeout = 1s
                sip.warm-up.calls = 0
                sip.overload-delay = 0s
                sip.listeners = [ { transport = udp, host = "127.0.0.1", port = %d } ]
                redis { mode = standalone, addresses = ["%s"], timeout = 2s, key-prefix = "tg-shadow-%s" }
                admin { host = "127.0.0.1", port = %d }
                records.file = "%s"
                """.formatted(sipPort, StandaloneRedis.shared().server().address(), UUID.randomUUID(),
                RedisServerProcess.freePort(), recordsFile));
        writePeer("shadow");
        write("carriers/busy.conf", "id = busy\nuri = \"" + carrier.uri() + "\"\ncps = 1000\n");
        write("routes.conf", "routes = [ { prefix = \"\", carriers = [busy] } ]\n");
        gateway = Gateway.start(ConfigLoader.load(dir.resolve("gateway.conf")));
        AdminClient admin = new AdminClient(gateway.adminAddress());

        List<Long> sentAt = new ArrayList<>();
        List<SipAgent.Call> shadowed = offer(caller, sipPort, sentAt);
        for (SipAgent.Call call : shadowed) {
            javax.sip.message.Response answer = call.awaitFinal(5000);
            assertEquals(486, answer.getStatusCode(), "admitted and sent to the carrier: " + answer);
        }
        List<JsonNode> first = records(recordsFile, CALLS);
        long marked = first.stream().filter(r -> r.get("wouldRefuse").size() > 0).count();
        assertTrue(first.stream().allMatch(r -> r.get("admission").asText().equals("admitted")), "all admitted");
        assertTrue(first.stream().filter(r -> r.get("wouldRefuse").size() > 0)
                .allMatch(r -> r.get("wouldRefuse").get(0).asText().equals(LIMIT)), first.toString());
        String metrics = admin.get("/metrics").body();
        assertEquals((double) marked, Metrics.value(metrics, "trunkgate_calls_would_refuse_total",
                Map.of("peer", "acme", "limit", LIMIT)).orElse(-1), "the metric counts the records marked");

        writePeer("enforce");
        Await.until(Duration.ofSeconds(10), () -> admin.get("/health").json().get("config").get("generation").asLong(),
                generation -> generation == 2);
        assertEquals("enforce", admin.get("/api/peers/acme").json().get("limits").get(0).get("mode").asText());

        List<SipAgent.Call> enforced = offer(caller, sipPort, sentAt);
        long refused = 0;
        for (SipAgent.Call call : enforced) {
            int status = call.awaitFinal(5000).getStatusCode();
            assertTrue(status == 486 || status == 503, "admitted, or refused over the limit: " + status);
            refused += status == 503 ? 1 : 0;
        }
        List<JsonNode> all = records(recordsFile, 2 * CALLS);
        List<JsonNode> second = all.subList(CALLS, 2 * CALLS);
        assertEquals(refused, second.stream().filter(r -> r.get("admission").asText().equals("rejected")
                && r.get("refusedBy").asText().equals(LIMIT)).count(), "the records say which calls were refused");
        assertTrue(second.stream().allMatch(r -> r.get("wouldRefuse").size() == 0), "nothing in shadow any more");
        metrics = admin.get("/metrics").body();
        assertEquals((double) refused, Metrics.value(metrics, "trunkgate_calls_rejected_total",
                Map.of("peer", "acme", "reason", "limited")).orElse(-1));
        assertEquals((double) marked, Metrics.value(metrics, "trunkgate_calls_would_refuse_total",
                Map.of("peer", "acme", "limit", LIMIT)).orElse(-1));

        // One timeline for both phases: the shadow window counted what the enforced one would have.
        List<Boolean> over = overTheWindow(sentAt);
        assertNear(count(over, 0, CALLS), marked, "calls marked would-refuse in shadow");
        assertNear(count(over, CALLS, 2 * CALLS), refused, "calls refused once enforced");
    }
}
