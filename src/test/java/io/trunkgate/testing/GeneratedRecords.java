package io.trunkgate.testing;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * Call records (docs/records.md) of generated traffic, decided by a model of the limits written apart from
 * lua/admit.lua (exact windows as a log of admission times, a precision window as per-bucket counts, a copy of an
 * admitted call merged, a max-concurrent cap as the calls admitted and not yet ended), and the configuration that
 * model enforces: peer a {1s, 10} and {1m, 300}; b {1s, 5} and c no window but at most 40 calls up at once, both in
 * group g {10s, 60 at 1s}; numbers starting +44 go to carrier x (5 cps, max-wait 1 s), then y (50 cps), the others to
 * y. An admitted call lasts up to 300 times the mean gap between calls. Its attempts are written as the carriers
 * answered, not as pacing would have spaced them (pacing is not modelled): one in ten first carriers answers 503
 * (which carriers fail over on by default), one call in twenty is answered 486 (no failover), the others 200. For
 * what-if tests and bench/what-if.sh.
 */
public final class GeneratedRecords {

    private static final long SECOND = 1_000_000L;
    private static final long START = Instant.parse("2026-11-20T00:00:00Z").toEpochMilli() * 1000;

    private GeneratedRecords() {
    }

    /** One limit of the model, in microseconds; precision 0 = exact. */
    private record ModelLimit(long window, long max, long precision) {
    }

    /** A scope's windows in the model: admission times (exact) or bucket counts (precision). */
    private static final class ModelScope {
        final List<ModelLimit> limits;
        final List<Deque<Long>> logs = new ArrayList<>();
        final List<TreeMap<Long, Long>> buckets = new ArrayList<>();
        /** max-concurrent, 0 for none; the admitted calls' ends (ms), while they may still be up. */
        final int cap;
        final PriorityQueue<Long> ends = new PriorityQueue<>();

        ModelScope(ModelLimit... limits) {
            this(0, limits);
        }

        ModelScope(int cap, ModelLimit... limits) {
            this.cap = cap;
            this.limits = List.of(limits);
            for (int i = 0; i < limits.length; i++) {
                logs.add(new ArrayDeque<>());
                buckets.add(new TreeMap<>());
            }
        }

        boolean admits(long now) {
            for (int i = 0; i < limits.size(); i++) {
                ModelLimit l = limits.get(i);
                long count;
                if (l.precision() == 0) {
                    Deque<Long> log = logs.get(i);
                    while (!log.isEmpty() && log.peekFirst() < now - l.window()) {
                        log.pollFirst();
                    }
                    count = log.size();
                } else {
                    TreeMap<Long, Long> counts = buckets.get(i);
                    counts.headMap(Math.floorDiv(now - l.window(), l.precision())).clear();
                    count = counts.values().stream().mapToLong(Long::longValue).sum();
                }
                if (count + 1 > l.max()) {
                    return false;
                }
            }
            return true;
        }

        /** Whether a call arriving at {@code nowMs} finds room under the cap: a call counts up to its end. */
        boolean hasRoom(long nowMs) {
            while (!ends.isEmpty() && ends.peek() < nowMs) {
                ends.poll();
            }
            return cap == 0 || ends.size() < cap;
        }

        void record(long now, long endMs) {
            if (cap > 0) {
                ends.add(endMs);
            }
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

    /** Writes the configuration of the model into {@code dir}, peer a with {@code peerALimits} instead of its own. */
    public static Path writeConfig(Path dir, String peerALimits) throws IOException {
        write(dir, "gateway.conf", "instance-id = generated\nsip.warm-up.calls = 0\n");
        write(dir, "peers/a.conf", "id = a\nmatch.sources = [\"10.0.0.1\"]\nlimits = [ " + peerALimits + " ]\n");
        write(dir, "peers/b.conf", "id = b\nmatch.sources = [\"10.0.0.2\"]\ngroup = g\n"
                + "limits = [ { window = 1s, max = 5 } ]\n");
        write(dir, "peers/c.conf", "id = c\nmatch.sources = [\"10.0.0.3\"]\ngroup = g\nmax-concurrent = " + PEER_C_CAP
                + "\n");
        write(dir, "groups/g.conf", "id = g\nlimits = [ { window = 10s, max = 60, precision = 1s } ]\n");
        write(dir, "carriers/x.conf", "id = x\nuri = \"sip:192.0.2.10\"\ncps = 5\nmax-wait = 1s\n");
        write(dir, "carriers/y.conf", "id = y\nuri = \"sip:192.0.2.11\"\ncps = 50\nmax-wait = 1s\n");
        write(dir, "routes.conf",
                "routes = [ { prefix = \"+44\", carriers = [x, y] }, { prefix = \"\", carriers = [y] } ]\n");
        return dir;
    }

    /** The model's cap of calls up at once for peer c. */
    public static final int PEER_C_CAP = 40;

    /** The model's own limits for peer a. */
    public static final String PEER_A_LIMITS = "{ window = 1s, max = 10 }, { window = 1m, max = 300 }";

    private static void write(Path dir, String name, String content) throws IOException {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    /** An INVITE sent to a carrier, and its answer. */
    private record Sent(String carrier, long micros, int status) {
        String json() {
            return "{\"carrier\":\"" + carrier + "\",\"address\":\"192.0.2." + (carrier.equals("x") ? 10 : 11)
                    + ":5060/udp\",\"slotWaitMs\":0,\"sentAt\":\"" + at(micros) + "\",\"finalStatus\":" + status
                    + ",\"firstProvisionalMs\":null,\"answerMs\":null,\"shadowWaitMs\":null}";
        }
    }

    /**
     * A call decided at {@code micros}, which arrived {@code arrivalMicros} before (as the gateway receives an INVITE
     * before Redis decides it).
     */
    private static String record(String callId, int peer, String number, long micros, long arrivalMicros,
                                 String admission, String refusedBy, List<Sent> attempts, Long answeredMicros,
                                 long endMicros) {
        List<String> reroutes = new ArrayList<>();
        for (int i = 0; i < attempts.size(); i++) {
            Sent attempt = attempts.get(i);
            if (attempt.status() == 503) {
                reroutes.add("\"" + attempt.carrier() + "->" + (i + 1 < attempts.size() ? attempts.get(i + 1).carrier()
                        : "none") + ":failure_response(503)\"");
            }
        }
        int finalStatus = attempts.isEmpty() ? (admission.equals("merged") ? 482 : 503)
                : attempts.get(attempts.size() - 1).status();
        return "{\"callId\":\"" + callId + "\",\"fromTag\":\"t" + callId + "\",\"cseq\":1,\"gateway\":\"gw\","
                + "\"sourceAddress\":\"10.0.0." + peer + ":5060\",\"peer\":\"" + "abc".charAt(peer - 1) + "\","
                + "\"requestUser\":\"" + number + "\","
                + "\"admission\":\"" + admission + "\",\"refusedBy\":" + (refusedBy == null ? "null"
                : "\"" + refusedBy + "\"") + ",\"wouldRefuse\":[],"
                + "\"carriers\":[" + String.join(",", attempts.stream().map(a -> "\"" + a.carrier() + "\"").toList())
                + "],\"reroutes\":[" + String.join(",", reroutes) + "],\"attempts\":["
                + String.join(",", attempts.stream().map(Sent::json).toList()) + "],"
                + "\"invitedAt\":\"" + at(micros - arrivalMicros) + "\",\"decidedAt\":"
                + (admission.equals("shed") ? "null" : "\"" + at(micros) + "\"") + ",\"answeredAt\":"
                + (answeredMicros == null ? "null" : "\"" + at(answeredMicros) + "\"") + ",\"endedAt\":\""
                + at(endMicros) + "\",\"durationMs\":" + (answeredMicros == null ? 0 : (endMicros - answeredMicros) / 1000)
                + ",\"finalStatus\":" + finalStatus + "}";
    }

    private static Instant at(long micros) {
        return Instant.EPOCH.plusNanos(micros * 1000);
    }

    /**
     * {@code calls} records of three peers, {@code meanGapMicros} apart on average, in bursts above their limits (a
     * quarter of the time five times as dense), decided by the model. Some calls come twice (a merged copy soon
     * after); one in 500 was shed or blocked; a broken line follows the 101st record and another ends the file. Each
     * call was decided ({@code decidedAt}) up to 3 ms after it arrived ({@code invitedAt}).
     */
    public static void write(Path file, int calls, long meanGapMicros, long seed) throws IOException {
        Random random = new Random(seed);
        Random arrival = new Random(seed + 1);
        Map<Integer, ModelScope> own = Map.of(
                1, new ModelScope(new ModelLimit(SECOND, 10, 0), new ModelLimit(60 * SECOND, 300, 0)),
                2, new ModelScope(new ModelLimit(SECOND, 5, 0)),
                3, new ModelScope(PEER_C_CAP));
        ModelScope group = new ModelScope(new ModelLimit(10 * SECOND, 60, SECOND));
        boolean previousAdmitted = false;
        // gaps in whole ms, uniform: a quarter of the time a fifth of the mean, else 1.27 times it
        int dense = (int) Math.max(1, 2 * meanGapMicros / 5 / 1000);
        int sparse = (int) Math.max(1, 2 * meanGapMicros * 127 / 100 / 1000);
        int longest = (int) Math.max(1, 300 * meanGapMicros / 1000);
        long time = START;
        int lastPeer = 0;
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int i = 0; i < calls; i++) {
                time += 1000L * (1 + random.nextInt((i / 200) % 4 == 0 ? dense : sparse)); // records carry ms
                long now = time;
                int peer = 1 + random.nextInt(3);
                String callId = "call-" + i;
                boolean copy = random.nextInt(50) == 0 && previousAdmitted;
                if (copy) {
                    callId = "call-" + (i - 1);
                    peer = lastPeer;
                }
                lastPeer = peer;
                String number = callId.hashCode() % 3 == 0 ? "+1555" : "+44207";
                List<ModelScope> scopes = peer == 1 ? List.of(own.get(peer)) : List.of(own.get(peer), group);
                String admission;
                String refusedBy = null;
                List<Sent> attempts = new ArrayList<>();
                Long answered = null;
                long end = now;
                if (random.nextInt(500) == 0) {
                    admission = random.nextBoolean() ? "shed" : "blocked";
                } else if (copy) {
                    admission = "merged";
                } else if (!scopes.stream().allMatch(s -> s.admits(now))) {
                    admission = "rejected";
                    refusedBy = "over a limit";
                } else if (!scopes.stream().allMatch(s -> s.hasRoom(now / 1000))) {
                    admission = "rejected";
                    refusedBy = "peer:c max-concurrent";
                } else {
                    admission = "admitted";
                    List<String> chain = number.startsWith("+44") ? List.of("x", "y") : List.of("y");
                    long sent = now;
                    int status = 0;
                    for (String carrier : chain) {
                        status = random.nextInt(10) == 0 ? 503 : random.nextInt(20) == 0 ? 486 : 200;
                        attempts.add(new Sent(carrier, sent, status));
                        if (status != 503) {
                            break;
                        }
                        sent += 1000L * (20 + random.nextInt(200));
                    }
                    long setup = 1000L * (500 + random.nextInt(2500));
                    end = attempts.get(attempts.size() - 1).micros() + setup;
                    if (status == 200) {
                        answered = end;
                        end += 1000L * random.nextInt(longest);
                    }
                    long endMs = end / 1000;
                    scopes.forEach(s -> s.record(now, endMs));
                }
                previousAdmitted = admission.equals("admitted");
                out.write(record(callId, peer, number, now, arrival.nextInt(3000), admission, refusedBy, attempts,
                        answered, end));
                out.newLine();
                if (i == 100) {
                    out.write("{\"callId\": truncated");
                    out.newLine();
                }
            }
            out.write("not json at all");
            out.newLine();
        }
    }
}
