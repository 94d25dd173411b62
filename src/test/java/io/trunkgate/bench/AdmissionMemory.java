package io.trunkgate.bench;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.internal.KeyLayout;
import io.trunkgate.limit.internal.RedisAdmissionLimiter;
import io.trunkgate.redis.RedisClients;
import io.trunkgate.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RedissonClient;

/**
 * Redis memory per peer at steady state, measured with {@code MEMORY USAGE key SAMPLES 0} (every element
 * counted, not sampled) and cross-checked with the growth of {@code used_memory} over many peers.
 *
 * <p>(a) 10/s + 300/min exact: both sorted sets are filled through admit.lua itself (a plan with only the
 * 1 min limit admits 300 calls, a plan with only the 1 s limit admits 10; both write the same keys as the
 * full plan), so members are the real 16-character CallMember hashes of the Call-IDs.
 * (b) the same + 100,000/day at 1 min precision: the day hash is written directly with admit.lua's layout:
 * 1,440 fields "bucket id" (floor(now_us / 60,000,000), decimal) -> count, plus "n" (sum) and "o" (oldest
 * bucket id), and the script's PEXPIRE. Then one admit() on the full plan checks the state is valid.
 * Argument: {@code --peers N} peers for the used_memory cross-check (default 100).
 */
public final class AdmissionMemory {

    private static final String PREFIX = "tg-bench";
    private static final Limit PER_SECOND = Limit.exact(Duration.ofSeconds(1), 10);
    private static final Limit PER_MINUTE = Limit.exact(Duration.ofMinutes(1), 300);
    private static final Limit PER_DAY = Limit.bucketed(Duration.ofDays(1), 100_000, Duration.ofMinutes(1));

    public static void main(String[] args) throws Exception {
        int peers = args.length >= 2 && args[0].equals("--peers") ? Integer.parseInt(args[1]) : 100;
        RedisServerProcess server = RedisServerProcess.start();
        RedisSettings settings = new RedisSettings(RedisMode.STANDALONE, List.of(server.address()), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(2), PREFIX, 0);
        RedissonClient client = RedisClients.connect(settings.connection(), server.address());
        try (Resp admin = new Resp(server.port())) {
            System.out.println("redis-server " + admin.info("server", "redis_version") + " on port " + server.port()
                    + ", zset-max-listpack-entries " + ((List<?>) admin.call("CONFIG", "GET",
                    "zset-max-listpack-entries")).get(1) + ", hash-max-listpack-entries "
                    + ((List<?>) admin.call("CONFIG", "GET", "hash-max-listpack-entries")).get(1));
            AdmissionLimiter limiter = new RedisAdmissionLimiter(client, PREFIX);
            KeyLayout layout = new KeyLayout(PREFIX);
            // open the client's connections first: their buffers would otherwise count in used_memory growth
            List<CompletableFuture<AdmissionDecision>> warm = new ArrayList<>();
            for (int i = 0; i < 10 * peers; i++) {
                warm.add(limiter.admit(AdmissionRequest.of("warm-" + i, Scope.peer("warm-" + i % peers,
                        List.of(PER_SECOND)))).toCompletableFuture());
            }
            warm.forEach(CompletableFuture::join);
            for (boolean withDay : new boolean[] {false, true}) {
                admin.call("FLUSHALL");
                List<Limit> limits = withDay ? List.of(PER_SECOND, PER_MINUTE, PER_DAY) : List.of(PER_SECOND, PER_MINUTE);
                Scope[] full = new Scope[peers];
                String[][] keys = new String[peers][limits.size()];
                for (int p = 0; p < peers; p++) {
                    String id = String.format(Locale.ROOT, "peer-%06d", p);
                    full[p] = Scope.peer(id, limits);
                    String tag = layout.tag(id, Optional.empty());
                    for (int i = 0; i < limits.size(); i++) {
                        keys[p][i] = layout.limitKey(tag, full[p], limits.get(i));
                    }
                }
                long before = Long.parseLong(admin.info("memory", "used_memory"));
                for (int p = 0; p < peers; p++) {
                    fill(limiter, Scope.peer(full[p].id(), List.of(PER_MINUTE)), 300, full[p].id() + "-m");
                    if (withDay) {
                        fillDay(admin, keys[p][2]);
                    }
                }
                // the 1 s windows last, all at once, so that none has expired when memory is read
                List<CompletableFuture<AdmissionDecision>> seconds = new ArrayList<>();
                for (int p = 0; p < peers; p++) {
                    for (int i = 0; i < 10; i++) {
                        seconds.add(limiter.admit(AdmissionRequest.of(full[p].id() + "-s-" + i + "@198.51.100.7",
                                Scope.peer(full[p].id(), List.of(PER_SECOND)))).toCompletableFuture());
                    }
                }
                for (CompletableFuture<AdmissionDecision> f : seconds) {
                    if (f.join().outcome() != AdmissionDecision.Outcome.ADMITTED) {
                        throw new IllegalStateException("1 s fill refused: " + f.join());
                    }
                }
                long after = Long.parseLong(admin.info("memory", "used_memory"));
                for (int p = 0; p < peers; p++) {
                    for (String k : keys[p]) {
                        admin.send("MEMORY", "USAGE", k, "SAMPLES", "0");
                    }
                }
                admin.flush();
                long[][] usage = new long[peers][limits.size()];
                long[] sums = new long[limits.size()];
                for (int p = 0; p < peers; p++) {
                    for (int i = 0; i < limits.size(); i++) {
                        Object u = admin.read();
                        if (u == null) {
                            throw new IllegalStateException(keys[p][i] + " expired before it was measured");
                        }
                        usage[p][i] = (Long) u;
                        sums[i] += usage[p][i];
                    }
                }
                System.out.println();
                System.out.println(withDay ? "(b) 10/s + 300/min exact + 100,000/day at 1 min precision"
                        : "(a) 10/s + 300/min exact");
                for (int i = 0; i < limits.size(); i++) {
                    System.out.printf(Locale.ROOT, "  %-46s %-9s %5d entries %7d bytes%n", keys[0][i],
                            admin.call("OBJECT", "ENCODING", keys[0][i]), entries(admin, keys[0][i]), usage[0][i]);
                }
                // the full plan must see valid, full windows: refused (both exact windows are full)
                AdmissionDecision d = limiter.admit(AdmissionRequest.of("check@198.51.100.7", full[0]))
                        .toCompletableFuture().join();
                System.out.println("  check, full plan on the filled peer: " + d.outcome() + " by limit "
                        + d.refusedLimit().map(Object::toString).orElse("-") + ", retry after "
                        + d.retryAfter().toMillis() + " ms");
                long total = 0;
                StringBuilder parts = new StringBuilder();
                for (long s : sums) {
                    total += s;
                    parts.append(parts.length() == 0 ? "" : " + ").append(s / peers);
                }
                System.out.printf(Locale.ROOT, "  MEMORY USAGE per peer, mean of %d peers: %d bytes (%s)%n", peers,
                        total / peers, parts);
                System.out.printf(Locale.ROOT, "  used_memory growth / peers: %d bytes (%d peers, %d -> %d)%n",
                        (after - before) / peers, peers, before, after);
            }
            // a manual block, when present
            admin.call("SET", PREFIX + ":{p:peer-x}:block:peer:peer-x", "blocked", "PX", "600000");
            System.out.printf(Locale.ROOT, "%nblock key while a peer is blocked: %d bytes%n",
                    (Long) admin.call("MEMORY", "USAGE", PREFIX + ":{p:peer-x}:block:peer:peer-x", "SAMPLES", "0"));
        } finally {
            client.shutdown();
            server.close();
        }
    }

    private static void fill(AdmissionLimiter limiter, Scope scope, int calls, String callPrefix) {
        for (int i = 0; i < calls; i++) {
            AdmissionDecision d = limiter.admit(AdmissionRequest.of(callPrefix + "-" + i + "@198.51.100.7", scope))
                    .toCompletableFuture().join();
            if (d.outcome() != AdmissionDecision.Outcome.ADMITTED) {
                throw new IllegalStateException("fill of " + scope + " refused at call " + i + ": " + d);
            }
        }
    }

    /** 1,440 one-minute buckets ending with the current one, ~69 calls each (100,000 / 1,440), as admit.lua writes. */
    static void fillDay(Resp admin, String key) {
        List<?> time = (List<?>) admin.call("TIME");
        long nowUs = Long.parseLong((String) time.get(0)) * 1_000_000L + Long.parseLong((String) time.get(1));
        long precisionUs = 60_000_000L;
        long current = Math.floorDiv(nowUs, precisionUs);
        long oldest = current - 1439;
        long n = 0;
        for (long b = oldest; b <= current; b++) {
            long count = 69;
            admin.send("HSET", key, Long.toString(b), Long.toString(count));
            // admit.lua's block sums: 32 buckets per block
            admin.send("HINCRBY", key, "g" + Math.floorDiv(b, 32), Long.toString(count));
            n += count;
        }
        admin.send("HSET", key, "n", Long.toString(n), "o", Long.toString(oldest));
        admin.send("PEXPIRE", key, Long.toString(86_400_000L + 60_000L));
        admin.flush();
        for (long i = 0; i < 2 * (current - oldest + 1) + 2; i++) {   // HSET and HINCRBY per bucket, HSET, PEXPIRE
            admin.read();
        }
    }

    private static long entries(Resp admin, String key) {
        String type = (String) admin.call("TYPE", key);
        return (Long) admin.call(type.equals("zset") ? "ZCARD" : "HLEN", key);
    }
}
