package io.trunkgate.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.ConfigLoader;
import io.trunkgate.config.GatewayConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * what-if against generated records: the records' decisions are those of an independent model of the limits
 * (exact windows as a log of admission times, a precision window as per-bucket counts, a copy of an admitted call
 * merged), written in the records' format; replayed through the same configuration by the gateway's own script on a
 * scratch redis-server, they must come out the same. Then a stricter configuration refuses more, and a shadow limit
 * counts what it would refuse.
 */
class WhatIfTest {

    private static final long SECOND = 1_000_000L;
    private static final long START = Instant.parse("2026-11-20T08:00:00Z").toEpochMilli() * 1000;

    @TempDir
    Path dir;

    /** One limit of the model, in microseconds; precision 0 = exact. */
    private record ModelLimit(long window, long max, long precision) {
    }

    /** A scope's windows in the model: admission times (exact) or bucket counts (precision). */
    private static final class ModelScope {
        final List<ModelLimit> limits;
        final List<Deque<Long>> logs = new ArrayList<>();
        final List<TreeMap<Long, Long>> buckets = new ArrayList<>();

        ModelScope(ModelLimit... limits) {
            this.limits = List.of(limits);
            for (int i = 0; i < limits.length; i++) {
                logs.add(new ArrayDeque<>());
                buckets.add(new TreeMap<>());
            }
        }

        boolean admits(long now) {
            for (int i = 0; i < limits.size(); i++) {
                ModelLimit l = limits.get(i);
                long count = l.precision() == 0
                        ? logs.get(i).stream().filter(t -> t >= now - l.window()).count()
                        : buckets.get(i).tailMap(Math.floorDiv(now - l.window(), l.precision())).values().stream()
                                .mapToLong(Long::longValue).sum();
                if (count + 1 > l.max()) {
                    return false;
                }
            }
            return true;
        }

        void record(long now) {
            for (int i = 0; i < limits.size(); i++) {
                ModelLimit l = limits.get(i);
                if (l.precision() == 0) {
                    logs.get(i).addLast(now);
                } else {
                    buckets.get(i).merge(Math.floorDiv(now, l.precision()), 1L, Long::sum);
                }
            }
        }
    }

    private void write(String name, String content) throws Exception {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private GatewayConfig config(String peerALimits) throws Exception {
        write("gateway.conf", "instance-id = what-if-test\nsip.warm-up.calls = 0\n");
        write("peers/a.conf", "id = a\nmatch.sources = [\"10.0.0.1\"]\nlimits = [ " + peerALimits + " ]\n");
        write("peers/b.conf", "id = b\nmatch.sources = [\"10.0.0.2\"]\ngroup = g\n"
                + "limits = [ { window = 1s, max = 5 } ]\n");
        write("peers/c.conf", "id = c\nmatch.sources = [\"10.0.0.3\"]\ngroup = g\n");
        write("groups/g.conf", "id = g\nlimits = [ { window = 10s, max = 60, precision = 1s } ]\n");
        return ConfigLoader.load(dir.resolve("gateway.conf"));
    }

    private static String record(String callId, int peer, long micros, String admission, String refusedBy) {
        return "{\"callId\":\"" + callId + "\",\"fromTag\":\"t" + callId + "\",\"cseq\":1,\"gateway\":\"gw\","
                + "\"sourceAddress\":\"10.0.0." + peer + ":5060\",\"peer\":\"" + "abc".charAt(peer - 1) + "\","
                + "\"admission\":\"" + admission + "\",\"refusedBy\":" + (refusedBy == null ? "null"
                : "\"" + refusedBy + "\"") + ",\"invitedAt\":\"" + Instant.EPOCH.plusNanos(micros * 1000) + "\"}";
    }

    /**
     * 30 minutes of calls from three peers in bursts above their limits, decided by the model: peer a
     * {1s, 10} and {1m, 300}; b {1s, 5} and c none, both in group g {10s, 60 at 1s}. Some calls come twice
     * (a merged copy 100 ms later); a few were shed or blocked; two lines are broken.
     */
    private Path generate(int calls) throws Exception {
        Random random = new Random(36);
        Map<Integer, ModelScope> own = Map.of(
                1, new ModelScope(new ModelLimit(SECOND, 10, 0), new ModelLimit(60 * SECOND, 300, 0)),
                2, new ModelScope(new ModelLimit(SECOND, 5, 0)),
                3, new ModelScope());
        ModelScope group = new ModelScope(new ModelLimit(10 * SECOND, 60, SECOND));
        Map<String, Long> admittedAt = new HashMap<>();
        List<String> lines = new ArrayList<>();
        long time = START;
        int lastPeer = 0;
        for (int i = 0; i < calls; i++) {
            // bursts: a quarter of the time 40 calls a second, else 8
            time += random.nextInt((i / 200) % 4 == 0 ? 50_000 : 250_000) + 1000;
            time -= time % 1000; // records carry milliseconds
            long now = time;
            int peer = 1 + random.nextInt(3);
            String callId = "call-" + i;
            boolean copy = i > 0 && random.nextInt(50) == 0 && admittedAt.containsKey("call-" + (i - 1));
            if (copy) {
                callId = "call-" + (i - 1);
                peer = lastPeer;
            }
            lastPeer = peer;
            ModelScope mine = own.get(peer);
            List<ModelScope> scopes = peer == 1 ? List.of(mine) : List.of(mine, group);
            String admission;
            String refusedBy = null;
            if (random.nextInt(500) == 0) {
                admission = random.nextBoolean() ? "shed" : "blocked";
            } else if (copy) {
                admission = "merged";
            } else if (scopes.stream().allMatch(s -> s.admits(now))) {
                scopes.forEach(s -> s.record(now));
                admittedAt.put(callId, now);
                admission = "admitted";
            } else {
                admission = "rejected";
                refusedBy = "over a limit";
            }
            lines.add(record(callId, peer, now, admission, refusedBy));
            if (i == 100) {
                lines.add("{\"callId\": truncated");
            }
        }
        lines.add("not json at all");
        Path records = dir.resolve("calls.jsonl");
        Files.write(records, lines);
        return records;
    }

    @Test
    void replayingRecordsUnderTheConfigurationThatDecidedThemGivesTheirDecisions() throws Exception {
        Path records = generate(20_000);
        WhatIfReport report = WhatIf.replay(config("{ window = 1s, max = 10 }, { window = 1m, max = 300 }"),
                List.of(records), Optional.empty(), Optional.empty());

        assertTrue(report.replayed() > 19_800, "replayed " + report.replayed());
        assertTrue(report.sameDecisions() >= report.replayed() * 999 / 1000,
                report.sameDecisions() + " of " + report.replayed() + ": " + report.differences());
        long refused = report.peers().values().stream().mapToLong(WhatIfReport.PeerFigures::recordedRefused).sum();
        assertTrue(refused > 1000, "the generated traffic went over the limits: " + refused + " refused");
        assertEquals(2, report.brokenCount());
        assertTrue(report.brokenLines().get(0).startsWith(records + ":102: "), report.brokenLines().toString());
        assertEquals(Integer.valueOf((int) (20_000 - report.replayed())),
                report.notReplayed().values().stream().reduce(0, Integer::sum), report.notReplayed().toString());
        assertTrue(report.notReplayed().keySet().stream().anyMatch(why -> why.startsWith("refused by an operator")));
    }

    @Test
    void aStricterConfigurationRefusesMoreAndAShadowLimitCountsWhatItWouldRefuse() throws Exception {
        Path records = generate(5_000);
        WhatIfReport report = WhatIf.replay(
                config("{ window = 1s, max = 5 }, { window = 1s, max = 3, mode = shadow }"),
                List.of(records), Optional.empty(), Optional.empty());
        WhatIfReport.PeerFigures a = report.peers().get("a");
        long refused = a.refusedBy().getOrDefault("peer:a 5/1000ms", 0L);
        assertTrue(refused > a.recordedRefused(), "a max of 5 refuses more than 10 did: " + a);
        assertTrue(a.wouldRefuse().getOrDefault("peer:a 3/1000ms", 0L) > refused, a.toString());
    }
}
