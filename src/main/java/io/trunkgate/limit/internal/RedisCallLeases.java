package io.trunkgate.limit.internal;

import io.trunkgate.limit.CallLeases;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.limit.Scope;
import io.trunkgate.redis.LuaScript;
import io.trunkgate.redis.RedisBreaker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases this instance holds, kept in Redis sorted sets (lua/take-lease.lua, renew-leases.lua,
 * release-leases.lua, count-leases.lua; admission leases come from admit.lua). Every third of the lease time it
 * replays the releases that failed, drops the leases of calls the gateway no longer knows (a call that ended
 * before its admission reply came back), and renews the rest. A renewal refreshes only leases still in their set,
 * so one that crosses a release never brings the lease back; a lease no longer there (it lapsed while Redis was out
 * of reach) is taken again for a call still up only while its scope has room, as a new call's would be. A call
 * whose lease found no room goes on without one, and every renewal tries again: the scope stays full until enough
 * calls end.
 */
public final class RedisCallLeases implements CallLeases {

    private static final Logger log = LoggerFactory.getLogger(RedisCallLeases.class);
    private static final LuaScript TAKE = LuaScript.fromResource("take-lease.lua");
    private static final LuaScript RENEW = LuaScript.fromResource("renew-leases.lua");
    private static final LuaScript RELEASE = LuaScript.fromResource("release-leases.lua");
    private static final LuaScript COUNT = LuaScript.fromResource("count-leases.lua");
    /** Members per renew call: keeps one script call short when thousands of calls share a lease set. */
    private static final int RENEW_BATCH = 500;

    /**
     * One call's leases: the member (call and owner), the admission lease sets it is in with each one's cap, and
     * its carrier's lease set with the carrier's cap.
     */
    private record Held(String member, Map<String, Integer> admission, Optional<Map.Entry<String, Integer>> carrier) {
        Map<String, Integer> all() {
            Map<String, Integer> keys = new LinkedHashMap<>(admission);
            carrier.ifPresent(c -> keys.put(c.getKey(), c.getValue()));
            return keys;
        }

        Optional<String> carrierKey() {
            return carrier.map(Map.Entry::getKey);
        }
    }

    private record Release(List<Object> keys, String member) {
    }

    private final RedissonClient redis;
    private final KeyLayout layout;
    private final RedisBreaker breaker;
    private final String owner;
    private final long leaseMs;
    private final Supplier<Set<String>> liveCalls;
    private final ConcurrentMap<String, Held> held = new ConcurrentHashMap<>();
    /** Peer lease sets a group move carried to another name: old name to new (one entry per moved peer). */
    private final ConcurrentMap<String, String> movedKeys = new ConcurrentHashMap<>();
    private final Queue<Release> pending = new ConcurrentLinkedQueue<>();
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile ScheduledFuture<?> renewals;

    /**
     * @param owner     this instance's id, carried in every lease member
     * @param liveCalls the keys (identities) of the calls this instance has in progress (INVITEs and dialogs)
     */
    public RedisCallLeases(RedissonClient redis, String keyPrefix, RedisBreaker breaker, String owner,
                           Duration leaseTime, Supplier<Set<String>> liveCalls) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
        this.breaker = breaker;
        this.owner = owner;
        this.leaseMs = leaseTime.toMillis();
        this.liveCalls = liveCalls;
    }

    @Override
    public void start(ScheduledExecutorService timers) {
        start(timers, Duration.ofMillis(Math.max(1, leaseMs / 3)));
    }

    /** Renews, replays failed releases and sweeps on {@code timers} every {@code period} (under the lease time). */
    public void start(ScheduledExecutorService timers, Duration period) {
        if (period.toMillis() >= leaseMs) {
            throw new IllegalArgumentException("leases must be renewed more often than they last: " + period);
        }
        renewals = timers.scheduleWithFixedDelay(this::maintain, period.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    long leaseMs() {
        return leaseMs;
    }

    String member(String callId) {
        return CallMember.of(callId) + "@" + owner;
    }

    /**
     * admit.lua gave the call leases in {@code caps}' keys, each set admitting that many calls. A key a group move
     * carried away meanwhile (an admission under way during the reload) is held under its new name.
     */
    void admitted(String callId, Map<String, Integer> caps) {
        Map<String, Integer> keys = new LinkedHashMap<>();
        caps.forEach((key, cap) -> keys.put(movedKeys.getOrDefault(key, key), cap));
        held.compute(callId, (id, old) -> new Held(member(callId), Collections.unmodifiableMap(keys),
                old == null ? Optional.empty() : old.carrier()));
    }

    /**
     * A group move carried the lease set {@code from} over to {@code to} (lua/take-keys.lua, merge-keys.lua):
     * this instance's calls now hold their leases there, and renew and release them there.
     */
    void moved(String from, String to) {
        movedKeys.remove(to);
        movedKeys.put(from, to);
        held.replaceAll((callId, call) -> {
            if (!call.admission().containsKey(from)) {
                return call;
            }
            Map<String, Integer> keys = new LinkedHashMap<>();
            call.admission().forEach((key, cap) -> keys.put(key.equals(from) ? to : key, cap));
            return new Held(call.member(), Collections.unmodifiableMap(keys), call.carrier());
        });
    }

    @Override
    public CompletionStage<Boolean> takeCarrier(String callId, String carrierId, int max) {
        releaseCarrier(callId);
        String key = layout.carrierLeaseKey(carrierId);
        String member = member(callId);
        return breaker.call(() -> TAKE.run(redis, List.of(key), member, Long.toString(leaseMs), Integer.toString(max)),
                (message, cause) -> new LimiterUnavailableException(
                        "lease at carrier " + carrierId + " unavailable: " + message, cause),
                late -> {
                    // Taken after the caller gave up on the reply: nobody will release it.
                    if ((Long) late.get(0) == 1L) {
                        send(new Release(List.of(key), member));
                    }
                })
                .thenApply(reply -> {
                    boolean taken = (Long) reply.get(0) == 1L;
                    if (taken) {
                        held.compute(callId, (id, old) -> new Held(member,
                                old == null ? Map.of() : old.admission(), Optional.of(Map.entry(key, max))));
                    }
                    return taken;
                });
    }

    @Override
    public void releaseCarrier(String callId) {
        String[] dropped = new String[1];
        held.computeIfPresent(callId, (id, old) -> {
            old.carrierKey().ifPresent(key -> dropped[0] = key);
            return old.admission().isEmpty() ? null : new Held(old.member(), old.admission(), Optional.empty());
        });
        if (dropped[0] != null) {
            send(new Release(List.of(dropped[0]), member(callId)));
        }
    }

    @Override
    public void release(String callId) {
        Held call = held.remove(callId);
        if (call == null) {
            return;
        }
        // one script call per hash tag: after a group move a call's peer lease and its old group's are in two slots
        Map<String, List<Object>> bySlot = new LinkedHashMap<>();
        call.admission().keySet().forEach(key -> bySlot.computeIfAbsent(hashTag(key), t -> new ArrayList<>()).add(key));
        bySlot.values().forEach(keys -> send(new Release(List.copyOf(keys), call.member())));
        call.carrierKey().ifPresent(key -> send(new Release(List.of(key), call.member())));
    }

    /** The part of a key Redis Cluster hashes: between its first '{' and the next '}'. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = open < 0 ? -1 : key.indexOf('}', open + 1);
        return close > open + 1 ? key.substring(open + 1, close) : key;
    }

    @Override
    public CompletionStage<Long> peerCalls(String peerId, Optional<String> groupId) {
        return count(layout.leaseKey(layout.tag(peerId, groupId), Scope.Kind.PEER, peerId));
    }

    @Override
    public CompletionStage<Long> groupCalls(String groupId) {
        return count(layout.leaseKey(KeyLayout.groupTag(groupId), Scope.Kind.GROUP, groupId));
    }

    @Override
    public CompletionStage<Long> carrierCalls(String carrierId) {
        return count(layout.carrierLeaseKey(carrierId));
    }

    @Override
    public int held() {
        return held.size();
    }

    @Override
    public int pendingReleases() {
        return pending.size();
    }

    private CompletionStage<Long> count(String key) {
        return breaker.call(() -> COUNT.run(redis, List.of(key)), (message, cause) ->
                new LimiterUnavailableException("lease count unavailable: " + message, cause))
                .thenApply(reply -> (Long) reply.get(0));
    }

    private void send(Release release) {
        CompletableFuture<Void> done = breaker.call(() -> RELEASE.run(redis, release.keys(), release.member()),
                (message, cause) -> new LimiterUnavailableException("lease release unavailable: " + message, cause))
                .thenApply(reply -> (Void) null).toCompletableFuture();
        inFlight.add(done);
        done.whenComplete((ok, error) -> {
            inFlight.remove(done);
            if (error != null) {
                pending.add(release);
            }
        });
    }

    private void maintain() {
        try {
            replay();
            sweep();
            renewNow();
        } catch (RuntimeException e) {
            log.warn("lease maintenance failed: {}", e.toString());
        }
    }

    private void replay() {
        for (int n = pending.size(); n > 0; n--) {
            Release release = pending.poll();
            if (release == null) {
                return;
            }
            send(release);
        }
    }

    /** Leases of calls that ended before their lease was recorded here (a late admission reply) go too. */
    private void sweep() {
        List<String> candidates = new ArrayList<>(held.keySet());
        Set<String> live = liveCalls.get();
        candidates.stream().filter(callId -> !live.contains(callId)).forEach(this::release);
    }

    /**
     * Renews every lease this instance holds, in batches per lease set; completes when every renewal, and every
     * lease taken again after it, has its reply (or failed).
     */
    CompletableFuture<Void> renewNow() {
        Map<String, Map<String, String>> byKey = new HashMap<>();
        held.forEach((callId, call) -> call.all().keySet().forEach(key ->
                byKey.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(call.member(), callId)));
        List<CompletableFuture<Void>> rounds = new ArrayList<>();
        byKey.forEach((key, calls) -> {
            List<Map.Entry<String, String>> members = new ArrayList<>(calls.entrySet());
            for (int from = 0; from < members.size(); from += RENEW_BATCH) {
                Map<String, String> batch = new LinkedHashMap<>();
                members.subList(from, Math.min(members.size(), from + RENEW_BATCH))
                        .forEach(e -> batch.put(e.getKey(), e.getValue()));
                rounds.add(renew(key, batch));
            }
        });
        return CompletableFuture.allOf(rounds.toArray(CompletableFuture[]::new));
    }

    /**
     * Refreshes the leases of {@code calls} (member to call key, as listed when the renewal began) in {@code key};
     * then takes again, under the key's cap, the leases Redis no longer had of the calls still held here with a
     * lease in {@code key}. A call released meanwhile is not held any more, so its lease stays gone.
     */
    CompletableFuture<Void> renew(String key, Map<String, String> calls) {
        Object[] args = new Object[1 + calls.size()];
        args[0] = Long.toString(leaseMs);
        int i = 1;
        for (String member : calls.keySet()) {
            args[i++] = member;
        }
        return breaker.call(() -> RENEW.run(redis, List.of(key), args), (message, cause) ->
                        new LimiterUnavailableException("lease renewal unavailable: " + message, cause))
                .thenCompose(reply -> {
                    List<String> lapsed = new ArrayList<>();
                    Integer cap = null;
                    for (Object member : reply.subList(1, reply.size())) {
                        Held call = held.get(calls.get((String) member));
                        Integer callCap = call == null || !call.member().equals(member) ? null : call.all().get(key);
                        if (callCap != null) {
                            lapsed.add((String) member);
                            cap = cap == null ? callCap : Math.min(cap, callCap);
                        }
                    }
                    return lapsed.isEmpty() ? CompletableFuture.<Void>completedFuture(null)
                            : retake(key, lapsed, cap, calls);
                })
                .exceptionally(error -> {
                    log.debug("leases in {} not renewed: {}", key, error.getMessage());
                    return null;
                })
                .toCompletableFuture();
    }

    /**
     * Takes again the leases of {@code members}, calls still up whose lease lapsed, while {@code key} has room
     * under {@code cap}. Once Redis has done so (in time or late), the lease of any of them whose call was
     * released meanwhile is released again, after the take.
     */
    private CompletionStage<Void> retake(String key, List<String> members, int cap, Map<String, String> calls) {
        Object[] args = new Object[2 + members.size()];
        args[0] = members.get(0);
        args[1] = Long.toString(leaseMs);
        args[2] = Integer.toString(cap);
        for (int i = 1; i < members.size(); i++) {
            args[2 + i] = members.get(i);
        }
        return breaker.call(() -> TAKE.run(redis, List.of(key), args), (message, cause) ->
                        new LimiterUnavailableException("lease unavailable: " + message, cause),
                        late -> releaseEnded(key, members, calls))
                .thenAccept(reply -> {
                    releaseEnded(key, members, calls);
                    long taken = (Long) reply.get(0);
                    if (taken < members.size()) {
                        log.warn("{} leases of calls up were gone from {} (lapsed while Redis was out of reach, or"
                                + " carried away by another gateway's group move): {} taken again; {} calls go on"
                                + " without a lease, the scope full at its cap of {} until they end",
                                members.size(), key, taken, members.size() - taken, cap);
                    } else {
                        log.warn("{} leases of calls up were gone from {} (lapsed while Redis was out of reach, or"
                                + " carried away by another gateway's group move) and were taken again",
                                members.size(), key);
                    }
                });
    }

    private void releaseEnded(String key, List<String> members, Map<String, String> calls) {
        for (String member : members) {
            Held call = held.get(calls.get(member));
            if (call == null || !call.member().equals(member) || !call.all().containsKey(key)) {
                send(new Release(List.of(key), member));
            }
        }
    }

    @Override
    public void close(Duration wait) {
        ScheduledFuture<?> task = renewals;
        if (task != null) {
            task.cancel(false);
        }
        try {
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(wait.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            log.warn("lease releases still under way at shutdown: {}", e.toString());
        }
    }
}
