package io.trunkgate.bench;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.GatewayThreads;
import io.trunkgate.pace.CarrierPacer;
import io.trunkgate.pace.PacingResult;
import io.trunkgate.pace.Reservation;
import io.trunkgate.pace.SlotReserver;
import io.trunkgate.pace.internal.RedisSlotReserver;
import io.trunkgate.pace.internal.TimerCarrierPacer;
import io.trunkgate.redis.RedisClients;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Carriers;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.redisson.api.RedissonClient;

/**
 * Carrier pacing through the real client path (RedisSlotReserver, Redisson, pace.lua) against a private
 * redis-server. Not a unit test: run it with bench/pacing.sh.
 *
 * <p>(a) Reservations per second: closed loop of {@code RedisSlotReserver.reserve()} at each concurrency level,
 * round-robin over many carriers with a high cps (nearly every reservation succeeds), then few slow carriers whose
 * next slot is beyond max-wait (nearly every reservation is refused).
 *
 * <p>(b) Release error: a {@code TimerCarrierPacer} over RedisSlotReserver, offered slightly more calls than the
 * carriers' total rate (open loop) so that calls are held; for each call released from a held state, release error
 * = wall clock at the moment its result completed RELEASED minus its slot (Redis TIME). Redis TIME and
 * {@code Instant.now()} read the same machine clock here (same host), so no offset estimate enters the
 * measurement.
 *
 * <p>Arguments (all optional): {@code --seconds N} measured seconds per reservation run (5), {@code --warmup N}
 * (2), {@code --carriers N} (100), {@code --cps N} cps of those carriers (100000), {@code --levels 1,16,64},
 * {@code --refused-carriers N} (10), {@code --refused-concurrency N} (16), {@code --release-seconds N} (10),
 * {@code --release-warmup N} (2), {@code --over N} offered / total rate (1.05), {@code --scenarios 10x100,1x1000}
 * (carriers x cps for the release runs), {@code --max-wait-ms N} (2000).
 */
public final class PacingBenchmark {

    static final String PREFIX = "tg-bench";

    private final SlotReserver reserver;
    private final AtomicLong seq = new AtomicLong();

    private PacingBenchmark(SlotReserver reserver) {
        this.reserver = reserver;
    }

    static double us(long nanos) {
        return nanos / 1000.0;
    }

    static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
    }

    // ---------------------------------------------------------------- (a) reservations per second

    private static final class Phase {
        final Recorder recorder = new Recorder(TimeUnit.SECONDS.toNanos(60), 3);
        final LongAdder reserved = new LongAdder();
        final LongAdder refused = new LongAdder();
        final LongAdder errors = new LongAdder();
        final long start;
        final long end;

        Phase(long start, long end) {
            this.start = start;
            this.end = end;
        }

        void done(long sent, long finished, Reservation r, Throwable error) {
            if (sent < start || finished > end) {
                return;
            }
            if (error != null) {
                errors.increment();
                return;
            }
            recorder.recordValue(finished - sent);
            (r.reserved() ? reserved : refused).increment();
        }

        String line(String label) {
            Histogram h = recorder.getIntervalHistogram();
            double seconds = (end - start) / 1e9;
            return String.format(Locale.ROOT, "%-22s %9d reservations %5.1f s %9.0f /s  p50 %7.1f us  p99 %7.1f us"
                            + "  p999 %8.1f us  max %9.1f us  reserved=%d refused=%d errors=%d",
                    label, h.getTotalCount(), seconds, h.getTotalCount() / seconds, us(h.getValueAtPercentile(50)),
                    us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()),
                    reserved.sum(), refused.sum(), errors.sum());
        }
    }

    /** Closed loop: {@code concurrency} reservations always outstanding; each completion sends the next. */
    String closedLoop(String label, CarrierConfig[] carriers, int concurrency, double warmupS, double seconds)
            throws InterruptedException {
        long start = System.nanoTime() + (long) (warmupS * 1e9);
        Phase phase = new Phase(start, start + (long) (seconds * 1e9));
        CountDownLatch chains = new CountDownLatch(concurrency);
        for (int c = 0; c < concurrency; c++) {
            send(carriers, phase, chains);
        }
        if (!chains.await((long) (warmupS + seconds) + 30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("closed loop did not drain");
        }
        return phase.line(label);
    }

    private void send(CarrierConfig[] carriers, Phase phase, CountDownLatch chains) {
        CarrierConfig carrier = carriers[(int) (seq.getAndIncrement() % carriers.length)];
        long sent = System.nanoTime();
        reserver.reserve(carrier, carrier.maxWait()).whenComplete((r, e) -> {
            long finished = System.nanoTime();
            phase.done(sent, finished, r, e);
            if (finished < phase.end) {
                send(carriers, phase, chains);
            } else {
                chains.countDown();
            }
        });
    }

    // ---------------------------------------------------------------- (b) release error

    /** One offered call: its slot (Redis time, us) and when it was released (wall clock, us). */
    private static final class CallRecord {
        final int carrier;
        final long due;
        volatile long slotMicros;
        volatile long delayMicros = -1;
        volatile long transitMicros;
        volatile long releasedMicros;
        volatile PacingResult.Status status;

        CallRecord(int carrier, long due) {
            this.carrier = carrier;
            this.due = due;
        }
    }

    /** Records each reservation's slot on the call being held; hold() calls reserve() on the caller's thread. */
    private static final class RecordingReserver implements SlotReserver {
        private final SlotReserver delegate;
        private CallRecord current;

        RecordingReserver(SlotReserver delegate) {
            this.delegate = delegate;
        }

        @Override
        public java.util.concurrent.CompletionStage<Reservation> reserve(CarrierConfig carrier, Duration maxWait) {
            CallRecord record = current;
            return delegate.reserve(carrier, maxWait).thenApply(r -> {
                record.slotMicros = r.slotMicros();
                record.delayMicros = r.delay().toNanos() / 1000;
                // wall clock at the reply minus Redis TIME in the script: what ServerClock adds as its offset
                record.transitMicros = wallMicros() - r.serverTimeMicros();
                return r;
            });
        }

        @Override
        public java.util.concurrent.CompletionStage<Void> giveBack(CarrierConfig carrier, Reservation reservation) {
            return delegate.giveBack(carrier, reservation);
        }
    }

    static long gcMillis() {
        long t = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            t += Math.max(0, gc.getCollectionTime());
        }
        return t;
    }

    static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    static void releaseError(SlotReserver redisReserver, int carrierCount, double cps, double over, double warmupS,
                             double seconds, Duration maxWait) throws InterruptedException {
        CarrierConfig[] carriers = new CarrierConfig[carrierCount];
        for (int i = 0; i < carrierCount; i++) {
            carriers[i] = Carriers.carrier("rel-" + carrierCount + "x" + (long) cps + "-" + i + "-" + System.nanoTime(),
                    cps, 1, maxWait, List.of(), 100_000);
        }
        double rate = carrierCount * cps * over;
        long total = (long) ((warmupS + seconds) * rate);
        long intervalNanos = (long) (1e9 / rate);
        RecordingReserver recording = new RecordingReserver(redisReserver);
        List<CallRecord> records = new ArrayList<>((int) total);
        long gcCount0;
        long gcMs0;
        long measureFrom;
        long lastDue;
        // control: a second, independent timer thread that schedules a no-op every ms and records how late it runs;
        // if its tail matches the release error's, the tail is thread wake-up on this machine, not the pacer's logic
        java.util.concurrent.ScheduledThreadPoolExecutor probeTimer = new java.util.concurrent.ScheduledThreadPoolExecutor(1);
        Histogram probe = new Histogram(3);
        try (GatewayThreads threads = new GatewayThreads();
             CarrierPacer pacer = new TimerCarrierPacer(recording, threads.pacerTimer())) {
            long t0 = System.nanoTime() + 5_000_000L;
            long probeFrom = t0 + (long) (warmupS * 1e9);
            long probeUntil = t0 + (long) ((warmupS + seconds) * 1e9);
            for (long at = probeFrom; at < probeUntil; at += 1_000_000L) {
                long target = at;
                probeTimer.schedule(() -> {
                    long late = System.nanoTime() - target;
                    synchronized (probe) {
                        probe.recordValue(Math.max(0, late / 1000));
                    }
                }, target - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            measureFrom = t0 + (long) (warmupS * 1e9);
            gcCount0 = -1;
            gcMs0 = 0;
            long maxSendLate = 0;
            for (long i = 0; i < total; i++) {
                long due = t0 + i * intervalNanos;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(wait);
                }
                if (gcCount0 < 0 && due >= measureFrom) {
                    gcCount0 = gcCount();
                    gcMs0 = gcMillis();
                }
                maxSendLate = Math.max(maxSendLate, System.nanoTime() - due);
                int c = (int) (i % carrierCount);
                CallRecord record = new CallRecord(c, due);
                records.add(record);
                recording.current = record;
                pacer.hold(carriers[c]).result().whenComplete((r, e) -> {
                    record.releasedMicros = wallMicros();
                    record.status = e != null ? null : r.status();
                });
            }
            lastDue = t0 + (total - 1) * intervalNanos;
            // wait until every call has an outcome (the queue drains at the carriers' rate)
            long deadline = System.nanoTime() + maxWait.toNanos() + TimeUnit.SECONDS.toNanos(10);
            for (CallRecord r : records) {
                while (r.status == null && r.releasedMicros == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            }
            System.out.printf(Locale.ROOT, "  sender: latest send %.1f us after its due time%n", us(maxSendLate));
        } finally {
            probeTimer.shutdown();
        }
        probeTimer.awaitTermination(5, TimeUnit.SECONDS);
        long gcCount1 = gcCount();
        long gcMs1 = gcMillis();

        Histogram held = new Histogram(3);      // released by the timer (slot in the future at reply time)
        Histogram immediate = new Histogram(3); // slot was "now": released on the reply
        long early = 0;
        long earlyImmediate = 0;
        long minError = Long.MAX_VALUE;
        Map<PacingResult.Status, Long> statuses = new HashMap<>();
        long unfinished = 0;
        long errors = 0;
        long measured = 0;
        for (CallRecord r : records) {
            if (r.due < measureFrom) {
                continue;
            }
            measured++;
            if (r.status == null) {
                if (r.releasedMicros == 0) {
                    unfinished++;
                } else {
                    errors++;
                }
                continue;
            }
            statuses.merge(r.status, 1L, Long::sum);
            if (r.status != PacingResult.Status.RELEASED) {
                continue;
            }
            long error = r.releasedMicros - r.slotMicros;
            minError = Math.min(minError, error);
            boolean wasHeld = r.delayMicros > 0;
            if (error < 0) {
                if (wasHeld) {
                    early++;
                } else {
                    earlyImmediate++;
                }
            }
            // histograms need non-negative values: record |error| for early ones separately counted
            (wasHeld ? held : immediate).recordValue(Math.max(0, error));
        }
        // spacing seen by each carrier: gaps between its local release times, and the most releases (and slots)
        // in any half-open 1 s window (t - 1 s, t]
        List<List<Long>> released = new ArrayList<>();
        List<List<Long>> slots = new ArrayList<>();
        for (int i = 0; i < carrierCount; i++) {
            released.add(new ArrayList<>());
            slots.add(new ArrayList<>());
        }
        Histogram transit = new Histogram(3);
        for (CallRecord r : records) {
            if (r.due >= measureFrom && r.status == PacingResult.Status.RELEASED) {
                released.get(r.carrier).add(r.releasedMicros);
                slots.get(r.carrier).add(r.slotMicros);
                transit.recordValue(Math.max(0, r.transitMicros));
            }
        }
        long intervalMicros = (long) Math.ceil(1e6 / cps);
        Histogram gaps = new Histogram(3);
        long gapsBelowHalf = 0;
        int maxPerSecond = 0;
        int maxSlotsPerSecond = 0;
        for (int c = 0; c < carrierCount; c++) {
            List<Long> times = released.get(c);
            times.sort(null);
            slots.get(c).sort(null);
            for (int i = 1; i < times.size(); i++) {
                long gap = times.get(i) - times.get(i - 1);
                gaps.recordValue(gap);
                if (gap < intervalMicros / 2) {
                    gapsBelowHalf++;
                }
            }
            maxPerSecond = Math.max(maxPerSecond, maxInWindow(times, 1_000_000));
            maxSlotsPerSecond = Math.max(maxSlotsPerSecond, maxInWindow(slots.get(c), 1_000_000));
        }
        System.out.printf(Locale.ROOT, "  offered %d calls at %.0f/s (%.2f x %d x %.0f cps), measured the %d offered"
                        + " after %.1f s warm-up: %s unfinished=%d errors=%d%n",
                total, rate, over, carrierCount, cps, measured, warmupS, statuses, unfinished, errors);
        System.out.printf(Locale.ROOT, "  release error, held calls (timer)   : n=%d  p50 %7.1f us  p99 %7.1f us"
                        + "  p999 %7.1f us  max %8.1f us  early=%d (negative error clipped to 0 in percentiles)%n",
                held.getTotalCount(), (double) held.getValueAtPercentile(50), (double) held.getValueAtPercentile(99),
                (double) held.getValueAtPercentile(99.9), (double) held.getMaxValue(), early);
        if (immediate.getTotalCount() > 0) {
            System.out.printf(Locale.ROOT, "  release error, slot=now (on reply)  : n=%d  p50 %7.1f us  p99 %7.1f us"
                            + "  p999 %7.1f us  max %8.1f us  early=%d%n",
                    immediate.getTotalCount(), (double) immediate.getValueAtPercentile(50),
                    (double) immediate.getValueAtPercentile(99), (double) immediate.getValueAtPercentile(99.9),
                    (double) immediate.getMaxValue(), earlyImmediate);
        }
        System.out.printf(Locale.ROOT, "  smallest release error %d us; GC during the measured part: %d collections,"
                + " %d ms%n", minError, gcCount1 - gcCount0, gcMs1 - gcMs0);
        synchronized (probe) {
            System.out.printf(Locale.ROOT, "  control timer thread (no-op every 1 ms, no Redis): n=%d lateness p50 %d us,"
                            + " p99 %d us, p999 %d us, max %d us%n", probe.getTotalCount(), probe.getValueAtPercentile(50),
                    probe.getValueAtPercentile(99), probe.getValueAtPercentile(99.9), probe.getMaxValue());
        }
        System.out.printf(Locale.ROOT, "  reply transit (wall clock at reply - Redis TIME in the script): min %d us,"
                        + " p50 %d us, p99 %d us (ServerClock's offset is the smallest such transit, so releases are"
                        + " planned that much after the slot)%n", transit.getMinValue(),
                transit.getValueAtPercentile(50), transit.getValueAtPercentile(99));
        System.out.printf(Locale.ROOT, "  carrier-side spacing (local release times): interval %d us; gap min %d us,"
                        + " p0.1 %d us, p1 %d us, p50 %d us; gaps < interval/2: %d of %d; most releases in any 1 s"
                        + " window of one carrier: %d (slots: %d; cps %.0f)%n", intervalMicros, gaps.getMinValue(),
                gaps.getValueAtPercentile(0.1), gaps.getValueAtPercentile(1), gaps.getValueAtPercentile(50),
                gapsBelowHalf, gaps.getTotalCount(), maxPerSecond, maxSlotsPerSecond, cps);
    }

    /** The most sorted times within any half-open window (t - window, t]. */
    static int maxInWindow(List<Long> sorted, long window) {
        int best = 0;
        int from = 0;
        for (int i = 0; i < sorted.size(); i++) {
            while (sorted.get(i) - sorted.get(from) >= window) {
                from++;
            }
            best = Math.max(best, i - from + 1);
        }
        return best;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = new HashMap<>(Map.ofEntries(Map.entry("seconds", "5"), Map.entry("warmup", "2"),
                Map.entry("carriers", "100"), Map.entry("cps", "100000"), Map.entry("levels", "1,16,64"),
                Map.entry("refused-carriers", "10"), Map.entry("refused-concurrency", "16"),
                Map.entry("release-seconds", "10"), Map.entry("release-warmup", "2"), Map.entry("over", "1.05"),
                Map.entry("scenarios", "10x100,1x1000"), Map.entry("max-wait-ms", "2000"),
                Map.entry("skip-reserve", "false")));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--") || !opt.containsKey(args[i].substring(2))) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; known: " + opt.keySet());
            }
            opt.put(args[i].substring(2), args[i + 1]);
        }
        double seconds = Double.parseDouble(opt.get("seconds"));
        double warmup = Double.parseDouble(opt.get("warmup"));
        System.out.printf(Locale.ROOT, "options %s; JVM %s, %d processors%n", new java.util.TreeMap<>(opt),
                Runtime.version(), Runtime.getRuntime().availableProcessors());

        RedisServerProcess server = RedisServerProcess.start();
        RedisSettings settings = new RedisSettings(RedisMode.STANDALONE, List.of(server.address()), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(2), PREFIX, 0);
        RedissonClient client = RedisClients.connect(settings.connection(), server.address());
        try (Resp admin = new Resp(server.port())) {
            System.out.println("redis-server " + admin.info("server", "redis_version") + " on port " + server.port());
            RedisSlotReserver redisReserver = new RedisSlotReserver(client, PREFIX);
            PacingBenchmark bench = new PacingBenchmark(redisReserver);

            if (!Boolean.parseBoolean(opt.get("skip-reserve"))) {
                int n = Integer.parseInt(opt.get("carriers"));
                double cps = Double.parseDouble(opt.get("cps"));
                CarrierConfig[] fast = new CarrierConfig[n];
                for (int i = 0; i < n; i++) {
                    fast[i] = Carriers.carrier("fast-" + i, cps, 1, Duration.ofSeconds(1), List.of(), 1000);
                }
                admin.call("FLUSHALL");
                bench.closedLoop("jit warm-up", fast, 16, 0, Math.max(warmup, 3));
                System.out.println();
                System.out.printf(Locale.ROOT, "(a) closed loop, %d carriers round-robin at %.0f cps each, burst 1,"
                        + " max-wait 1 s (nearly all reserved)%n", n, cps);
                for (String level : opt.get("levels").split(",")) {
                    int c = Integer.parseInt(level.trim());
                    admin.call("FLUSHALL");
                    admin.call("CONFIG", "RESETSTAT");
                    System.out.println(bench.closedLoop("reserved c=" + c, fast, c, warmup, seconds) + "  "
                            + AdmissionBenchmark.serverCost(admin));
                }
                int rn = Integer.parseInt(opt.get("refused-carriers"));
                int rc = Integer.parseInt(opt.get("refused-concurrency"));
                CarrierConfig[] slow = new CarrierConfig[rn];
                for (int i = 0; i < rn; i++) {
                    slow[i] = Carriers.carrier("slow-" + i, 10, 1, Duration.ofMillis(100), List.of(), 1000);
                }
                admin.call("FLUSHALL");
                admin.call("CONFIG", "RESETSTAT");
                System.out.printf(Locale.ROOT, "(a) closed loop, %d carriers at 10 cps, max-wait 100 ms"
                        + " (nearly all over max-wait, nothing reserved)%n", rn);
                System.out.println(bench.closedLoop("over max-wait c=" + rc, slow, rc, warmup, seconds) + "  "
                        + AdmissionBenchmark.serverCost(admin));
            }

            double over = Double.parseDouble(opt.get("over"));
            double rs = Double.parseDouble(opt.get("release-seconds"));
            double rw = Double.parseDouble(opt.get("release-warmup"));
            Duration maxWait = Duration.ofMillis(Long.parseLong(opt.get("max-wait-ms")));
            for (String scenario : opt.get("scenarios").split(",")) {
                String[] p = scenario.trim().split("x");
                int carriers = Integer.parseInt(p[0]);
                double cps = Double.parseDouble(p[1]);
                admin.call("FLUSHALL");
                System.out.println();
                System.out.printf(Locale.ROOT, "(b) release error, TimerCarrierPacer over RedisSlotReserver: %d"
                        + " carrier(s) x %.0f cps, burst 1, max-wait %d ms, offered %.2f x the rate for %.0f s + %.0f s"
                        + " warm-up%n", carriers, cps, maxWait.toMillis(), over, rs, rw);
                System.out.println("  load before: " + java.nio.file.Files.readString(
                        java.nio.file.Path.of("/proc/loadavg")).trim());
                releaseError(redisReserver, carriers, cps, over, rw, rs, maxWait);
            }
        } finally {
            client.shutdown();
            server.close();
        }
    }
}
