package io.trunkgate.bench;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.limit.internal.RedisCallLeases;
import io.trunkgate.redis.RedisClients;
import io.trunkgate.redis.RedisBreaker;
import io.trunkgate.redis.RedisServerProcess;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.redisson.api.RedissonClient;

/**
 * Admission throughput and latency through the real client path (RedisAdmissionLimiter, Redisson, admit.lua)
 * against a private redis-server, then the same script driven by redis-benchmark for comparison.
 * Not a unit test: run it with bench/admission.sh.
 *
 * <p>Arguments (all optional): {@code --seconds N} measured seconds per run (10), {@code --warmup N} warm-up
 * seconds before each run (2), {@code --peers N} distinct peers used round-robin (1000), {@code --levels 1,16,64}
 * closed-loop concurrency levels, {@code --rate N} open-loop rate (5000/s), {@code --refused-peers N} peers of
 * the over-limit runs (10), {@code --redis-benchmark PATH|none} (redis-benchmark on PATH), {@code
 * --concurrent-levels 16|none} concurrency levels of the runs without and with max-concurrent caps; {@code --rate 0}
 * skips the open-loop run.
 */
public final class AdmissionBenchmark {

    static final String PREFIX = "tg-bench";
    /** A typical peer with a high max, so that nearly every call is admitted and recorded. */
    static final List<Limit> HIGH = List.of(Limit.exact(Duration.ofSeconds(1), 1_000_000),
            Limit.exact(Duration.ofMinutes(1), 10_000_000));
    /** The usual peer contract; with few peers offered thousands of calls per second, most are refused. */
    static final List<Limit> LOW = List.of(Limit.exact(Duration.ofSeconds(1), 10),
            Limit.exact(Duration.ofMinutes(1), 300));

    /**
     * A day cap at one-minute precision, exactly full after {@link AdmissionMemory#fillDay} (1,440 buckets of 69):
     * every call is refused by the precision window, the path that used to read the whole hash.
     */
    static final List<Limit> DAY_FULL = List.of(Limit.bucketed(Duration.ofDays(1), 1440 * 69, Duration.ofMinutes(1)));

    private final AdmissionLimiter limiter;
    private final AtomicLong callSeq = new AtomicLong();

    private AdmissionBenchmark(AdmissionLimiter limiter) {
        this.limiter = limiter;
    }

    record Stats(String label, long count, double seconds, Histogram h, Map<AdmissionDecision.Outcome, Long> outcomes,
                 long errors) {
        double rate() {
            return count / seconds;
        }

        String line() {
            return String.format(Locale.ROOT, "%-34s %9d decisions %8.1f s %10.0f /s  p50 %7.1f us  p99 %7.1f us"
                            + "  p999 %8.1f us  max %8.1f us  %s errors=%d",
                    label, count, seconds, rate(), us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(99)),
                    us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()), outcomes, errors);
        }
    }

    static double us(long nanos) {
        return nanos / 1000.0;
    }

    private AdmissionRequest request(Scope[] peers, long i) {
        return AdmissionRequest.of("bench-" + i + "@10.0.0.1", peers[(int) (i % peers.length)]);
    }

    private static Scope[] peers(int n, List<Limit> limits) {
        Scope[] peers = new Scope[n];
        for (int i = 0; i < n; i++) {
            // 12-digit ids: the same key names as redis-benchmark's __rand_int__ below
            peers[i] = Scope.peer(String.format(Locale.ROOT, "%012d", i), limits);
        }
        return peers;
    }

    /** A measured phase: latencies recorded only for calls started and finished inside [start, end]. */
    private static final class Phase {
        final Recorder recorder = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
        final Map<AdmissionDecision.Outcome, LongAdder> outcomes = new EnumMap<>(AdmissionDecision.Outcome.class);
        final LongAdder errors = new LongAdder();
        final long start;
        final long end;

        Phase(long start, long end) {
            this.start = start;
            this.end = end;
            for (AdmissionDecision.Outcome o : AdmissionDecision.Outcome.values()) {
                outcomes.put(o, new LongAdder());
            }
        }

        void done(long sent, long finished, AdmissionDecision d, Throwable error) {
            if (sent < start || finished > end) {
                return;
            }
            if (error != null) {
                errors.increment();
                return;
            }
            recorder.recordValue(finished - sent);
            outcomes.get(d.outcome()).increment();
        }

        Stats stats(String label) {
            Histogram h = recorder.getIntervalHistogram();
            Map<AdmissionDecision.Outcome, Long> counts = new EnumMap<>(AdmissionDecision.Outcome.class);
            outcomes.forEach((o, n) -> {
                if (n.sum() > 0) {
                    counts.put(o, n.sum());
                }
            });
            return new Stats(label, h.getTotalCount(), (end - start) / 1e9, h, counts, errors.sum());
        }
    }

    /** Closed loop: {@code concurrency} calls always outstanding; each completion sends the next call. */
    Stats closedLoop(String label, Scope[] peers, int concurrency, double warmupS, double seconds)
            throws InterruptedException {
        long now = System.nanoTime();
        long start = now + (long) (warmupS * 1e9);
        Phase phase = new Phase(start, start + (long) (seconds * 1e9));
        CountDownLatch chains = new CountDownLatch(concurrency);
        for (int c = 0; c < concurrency; c++) {
            sendClosed(peers, phase, chains);
        }
        if (!chains.await((long) (warmupS + seconds) + 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("closed loop did not drain");
        }
        return phase.stats(label);
    }

    private void sendClosed(Scope[] peers, Phase phase, CountDownLatch chains) {
        long sent = System.nanoTime();
        limiter.admit(request(peers, callSeq.getAndIncrement())).whenComplete((d, e) -> {
            long finished = System.nanoTime();
            phase.done(sent, finished, d, e);
            if (finished < phase.end) {
                sendClosed(peers, phase, chains);
            } else {
                chains.countDown();
            }
        });
    }

    /**
     * Open loop: call i is due at start + i / rate and is sent then (or as soon after as the sender wakes);
     * its latency counts from the due time, so a late sender or a stalled client shows in the figures
     * instead of being hidden (no coordinated omission).
     */
    Stats openLoop(String label, Scope[] peers, int rate, double warmupS, double seconds) throws InterruptedException {
        long t0 = System.nanoTime() + 5_000_000L;
        long start = t0 + (long) (warmupS * 1e9);
        Phase phase = new Phase(start, start + (long) (seconds * 1e9));
        double interval = 1e9 / rate;
        long total = (long) ((warmupS + seconds) * rate);
        AtomicLong outstanding = new AtomicLong();
        for (long i = 0; i < total; i++) {
            long due = t0 + (long) (i * interval);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            outstanding.incrementAndGet();
            limiter.admit(request(peers, callSeq.getAndIncrement())).whenComplete((d, e) -> {
                phase.done(due, System.nanoTime(), d, e);
                outstanding.decrementAndGet();
            });
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (outstanding.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return phase.stats(label);
    }

    record RbResult(int clients, long n, double rps, double p50Ms, double p99Ms, String command) {
    }

    /** redis-benchmark running admit.lua by EVALSHA with the same KEYS/ARGV shape as {@link #HIGH}. */
    static RbResult redisBenchmark(String exe, int port, String sha, int clients, long n, int peers)
            throws IOException, InterruptedException {
        String tag = "{p:__rand_int__}";
        List<String> cmd = new ArrayList<>(List.of(exe, "-p", Integer.toString(port), "-n", Long.toString(n),
                "-c", Integer.toString(clients), "-P", "1", "-r", Integer.toString(peers), "--csv",
                "evalsha", sha, "4",
                PREFIX + ":" + tag + ":block:peer:__rand_int__",
                PREFIX + ":" + tag + ":peer:__rand_int__:1000",
                PREFIX + ":" + tag + ":peer:__rand_int__:60000",
                PREFIX + ":" + tag + ":seen:peer:__rand_int__",
                "m__rand_int__:__rand_int__", "1", "1", "2", "1000", "1000000", "0", "0", "60000", "10000000", "0", "0"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String l; (l = r.readLine()) != null; ) {
                lines.add(l);
            }
        }
        if (p.waitFor() != 0) {
            throw new IllegalStateException("redis-benchmark failed: " + lines);
        }
        // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max..."
        String data = null;
        for (String l : lines) {
            if (l.startsWith("\"") && !l.startsWith("\"test\"")) {
                data = l;
            }
        }
        if (data == null) {
            throw new IllegalStateException("no CSV line in redis-benchmark output: " + lines);
        }
        String[] f = data.replace("\"", "").split(",");
        int k = f.length;
        return new RbResult(clients, n, Double.parseDouble(f[k - 7]), Double.parseDouble(f[k - 4]),
                Double.parseDouble(f[k - 2]), String.join(" ", cmd));
    }

    /** Redis-side cost of the script since the last CONFIG RESETSTAT: mean microseconds per EVALSHA. */
    static String serverCost(Resp admin) {
        for (String l : ((String) admin.call("INFO", "commandstats")).split("\r\n")) {
            if (l.startsWith("cmdstat_evalsha:")) {
                for (String f : l.substring(16).split(",")) {
                    if (f.startsWith("usec_per_call=")) {
                        return "redis-server " + f.substring(14) + " us/EVALSHA";
                    }
                }
            }
        }
        return "";
    }

    static String admitSource() throws IOException {
        try (var in = AdmissionBenchmark.class.getResourceAsStream("/lua/admit.lua")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /**
     * The same closed loop with and without a max-concurrent cap on every peer (1,000,000: every call admitted and
     * leased), alternated twice so that drifting load hits both: admit.lua's lease part costs this much.
     */
    private static void concurrentRuns(RedissonClient client, Resp admin, AdmissionBenchmark plain, Scope[] high,
                                       String levels, double warmup, double seconds) throws Exception {
        if (levels.equals("none")) {
            return;
        }
        GatewayThreads threads = new GatewayThreads();
        RedisCallLeases leases = new RedisCallLeases(client, PREFIX, RedisBreaker.withTimeout(Duration.ofSeconds(2),
                threads.redisTimeouts(), threads.redisResults()), "bench", Duration.ofMinutes(1), Set::of);
        AdmissionBenchmark leased = new AdmissionBenchmark(new RedisAdmissionLimiter(client, PREFIX,
                Optional.of(leases)));
        Scope[] capped = new Scope[high.length];
        for (int i = 0; i < high.length; i++) {
            capped[i] = high[i].withMaxConcurrent(OptionalInt.of(1_000_000));
        }
        System.out.printf("closed loop, %d peers round-robin, limits %s, without and with max-concurrent%n",
                high.length, HIGH);
        for (String level : levels.split(",")) {
            int c = Integer.parseInt(level.trim());
            for (int round = 1; round <= 2; round++) {
                admin.call("FLUSHALL");
                admin.call("CONFIG", "RESETSTAT");
                Stats off = plain.closedLoop("caps off c=" + c + " #" + round, high, c, warmup, seconds);
                System.out.println(off.line() + "  " + serverCost(admin));
                admin.call("FLUSHALL");
                admin.call("CONFIG", "RESETSTAT");
                Stats on = leased.closedLoop("caps on c=" + c + " #" + round, capped, c, warmup, seconds);
                System.out.println(on.line() + "  " + serverCost(admin));
                System.out.printf(Locale.ROOT, "caps on / caps off, c=%d round %d: throughput %.2f, p50 %.2f, p99 %.2f%n",
                        c, round, on.rate() / off.rate(),
                        us(on.h().getValueAtPercentile(50)) / us(off.h().getValueAtPercentile(50)),
                        us(on.h().getValueAtPercentile(99)) / us(off.h().getValueAtPercentile(99)));
            }
        }
        System.out.println();
        threads.close();
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new java.util.HashMap<>(Map.of("seconds", "10", "warmup", "2", "peers", "1000",
                "levels", "1,16,64", "rate", "5000", "refused-peers", "10", "refused-concurrency", "16",
                "redis-benchmark", "redis-benchmark", "concurrent-levels", "16"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--") || !opt.containsKey(args[i].substring(2))) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opt.keySet());
            }
            opt.put(args[i].substring(2), args[i + 1]);
        }
        double seconds = Double.parseDouble(opt.get("seconds"));
        double warmup = Double.parseDouble(opt.get("warmup"));
        int peerCount = Integer.parseInt(opt.get("peers"));
        System.out.printf(Locale.ROOT, "options %s; JVM %s, %d processors%n", opt, Runtime.version(),
                Runtime.getRuntime().availableProcessors());

        RedisServerProcess server = RedisServerProcess.start();
        RedisSettings settings = new RedisSettings(RedisMode.STANDALONE, List.of(server.address()), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(2), PREFIX, 0);
        RedissonClient client = RedisClients.connect(settings.connection(), server.address());
        List<Stats> ours = new ArrayList<>();
        try (Resp admin = new Resp(server.port())) {
            System.out.println("redis-server " + admin.info("server", "redis_version") + " on port " + server.port());
            AdmissionBenchmark bench = new AdmissionBenchmark(new RedisAdmissionLimiter(client, PREFIX));
            Scope[] high = peers(peerCount, HIGH);

            // JIT warm-up of the whole path before the first measured run
            admin.call("FLUSHALL");
            bench.closedLoop("jit warm-up", high, 16, 0, Math.max(warmup, 3));

            System.out.println();
            System.out.printf("closed loop, %d peers round-robin, limits %s (nearly all admitted)%n", peerCount, HIGH);
            for (String level : opt.get("levels").split(",")) {
                int c = Integer.parseInt(level.trim());
                admin.call("FLUSHALL");
                admin.call("CONFIG", "RESETSTAT");
                Stats s = bench.closedLoop("admitted c=" + c, high, c, warmup, seconds);
                ours.add(s);
                System.out.println(s.line() + "  " + serverCost(admin));
            }

            concurrentRuns(client, admin, bench, high, opt.get("concurrent-levels"), warmup, seconds);

            int refusedPeers = Integer.parseInt(opt.get("refused-peers"));
            int rc = Integer.parseInt(opt.get("refused-concurrency"));
            admin.call("FLUSHALL");
            admin.call("CONFIG", "RESETSTAT");
            System.out.printf("closed loop, %d peers round-robin, limits %s (peers over their limit)%n",
                    refusedPeers, LOW);
            System.out.println(bench.closedLoop("refused c=" + rc, peers(refusedPeers, LOW), rc, warmup, seconds)
                    .line() + "  " + serverCost(admin));

            admin.call("FLUSHALL");
            Scope[] dayFull = peers(refusedPeers, DAY_FULL);
            for (Scope peer : dayFull) {
                AdmissionMemory.fillDay(admin, PREFIX + ":{p:" + peer.id() + "}:peer:" + peer.id() + ":86400000:60000:v2");
            }
            admin.call("CONFIG", "RESETSTAT");
            System.out.printf("closed loop, %d peers round-robin, limits %s, 1,440 buckets full (refused by the day)%n",
                    refusedPeers, DAY_FULL);
            System.out.println(bench.closedLoop("day-refused c=" + rc, dayFull, rc, warmup, seconds)
                    .line() + "  " + serverCost(admin));

            int rate = Integer.parseInt(opt.get("rate"));
            if (rate > 0) {
                admin.call("FLUSHALL");
                admin.call("CONFIG", "RESETSTAT");
                System.out.printf("open loop at %d/s, %d peers, limits %s, latency from the intended send time%n",
                        rate, peerCount, HIGH);
                System.out.println(bench.openLoop("fixed rate " + rate + "/s", high, rate, warmup, seconds).line()
                        + "  " + serverCost(admin));
            }
            System.out.printf(Locale.ROOT, "used_memory after the runs: %s bytes%n", admin.info("memory", "used_memory"));

            String exe = opt.get("redis-benchmark");
            if (!exe.equals("none")) {
                String sha = (String) admin.call("SCRIPT", "LOAD", admitSource());
                System.out.println();
                System.out.println("redis-benchmark, EVALSHA " + sha + ", same KEYS/ARGV, -r " + peerCount
                        + " (keys over the same peers; member m<rand>:<rand>)");
                for (Stats s : ours) {
                    int c = Integer.parseInt(s.label().substring(s.label().indexOf('=') + 1));
                    admin.call("FLUSHALL");
                    // pilot run: warms the keys and sizes -n so the measured run lasts about --seconds
                    RbResult pilot = redisBenchmark(exe, server.port(), sha, c, 20_000, peerCount);
                    long n = Math.max(20_000, (long) (pilot.rps() * seconds));
                    admin.call("CONFIG", "RESETSTAT");
                    RbResult rb = redisBenchmark(exe, server.port(), sha, c, n, peerCount);
                    if (c == 1) {
                        System.out.println("command: " + rb.command());
                    }
                    System.out.printf(Locale.ROOT, "redis-benchmark c=%-3d n=%-8d %10.0f /s  p50 %7.1f us  p99 %7.1f us"
                                    + "   ours/redis-benchmark: throughput %.2f, p50 %.2f, p99 %.2f  %s%n",
                            c, n, rb.rps(), rb.p50Ms() * 1000, rb.p99Ms() * 1000, s.rate() / rb.rps(),
                            us(s.h().getValueAtPercentile(50)) / (rb.p50Ms() * 1000),
                            us(s.h().getValueAtPercentile(99)) / (rb.p99Ms() * 1000), serverCost(admin));
                }
            }
        } finally {
            client.shutdown();
            server.close();
        }
    }
}
