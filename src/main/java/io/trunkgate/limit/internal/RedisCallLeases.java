package io.trunkgate.limit.internal;

import io.trunkgate.limit.CallLeases;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.limit.Scope;
import io.trunkgate.redis.LuaScript;
import io.trunkgate.redis.RedisGuard;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * before its admission reply came back), and renews the rest.
 */
public final class RedisCallLeases implements CallLeases {

    private static final Logger log = LoggerFactory.getLogger(RedisCallLeases.class);
    private static final LuaScript TAKE = LuaScript.fromResource("take-lease.lua");
    private static final LuaScript RENEW = LuaScript.fromResource("renew-leases.lua");
    private static final LuaScript RELEASE = LuaScript.fromResource("release-leases.lua");
    private static final LuaScript COUNT = LuaScript.fromResource("count-leases.lua");
    /** Members per renew call: keeps one script call short when thousands of calls share a lease set. */
    private static final int RENEW_BATCH = 500;

    /** One call's leases: the member (call and owner) and the lease sets it is in. */
    private record Held(String member, List<String> admissionKeys, Optional<String> carrierKey) {
        List<String> all() {
            List<String> keys = new ArrayList<>(admissionKeys);
            carrierKey.ifPresent(keys::add);
            return keys;
        }
    }

    private record Release(List<Object> keys, String member) {
    }

    private final RedissonClient redis;
    private final KeyLayout layout;
    private final RedisGuard guard;
    private final String owner;
    private final long leaseMs;
    private final Supplier<Set<String>> liveCalls;
    private final ConcurrentMap<String, Held> held = new ConcurrentHashMap<>();
    private final Queue<Release> pending = new ConcurrentLinkedQueue<>();
    private final Set<CompletableFuture<?>> inFlight = ConcurrentHashMap.newKeySet();
    private volatile ScheduledFuture<?> renewals;

    /**
     * @param owner     this instance's id, carried in every lease member
     * @param liveCalls the Call-IDs of the calls this instance has in progress (INVITEs and dialogs)
     */
    public RedisCallLeases(RedissonClient redis, String keyPrefix, RedisGuard guard, String owner,
                           Duration leaseTime, Supplier<Set<String>> liveCalls) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
        this.guard = guard;
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

    /** admit.lua gave the call leases in {@code keys}. */
    void admitted(String callId, List<String> keys) {
        held.compute(callId, (id, old) -> new Held(member(callId), List.copyOf(keys),
                old == null ? Optional.empty() : old.carrierKey()));
    }

    @Override
    public CompletionStage<Boolean> takeCarrier(String callId, String carrierId, int max) {
        releaseCarrier(callId);
        String key = layout.carrierLeaseKey(carrierId);
        String member = member(callId);
        return guard.call(() -> TAKE.run(redis, List.of(key), member, Long.toString(leaseMs), Integer.toString(max)),
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
                                old == null ? List.of() : old.admissionKeys(), Optional.of(key)));
                    }
                    return taken;
                });
    }

    @Override
    public void releaseCarrier(String callId) {
        String[] dropped = new String[1];
        held.computeIfPresent(callId, (id, old) -> {
            old.carrierKey().ifPresent(key -> dropped[0] = key);
            return old.admissionKeys().isEmpty() ? null : new Held(old.member(), old.admissionKeys(), Optional.empty());
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
        if (!call.admissionKeys().isEmpty()) {
            send(new Release(List.copyOf(call.admissionKeys()), call.member()));
        }
        call.carrierKey().ifPresent(key -> send(new Release(List.of(key), call.member())));
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
        return guard.call(() -> COUNT.run(redis, List.of(key)), (message, cause) ->
                new LimiterUnavailableException("lease count unavailable: " + message, cause))
                .thenApply(reply -> (Long) reply.get(0));
    }

    private void send(Release release) {
        CompletableFuture<Void> done = guard.call(() -> RELEASE.run(redis, release.keys(), release.member()),
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
            renew();
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

    private void renew() {
        Map<String, List<String>> byKey = new HashMap<>();
        held.values().forEach(call -> call.all().forEach(key ->
                byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(call.member())));
        byKey.forEach((key, members) -> {
            for (int from = 0; from < members.size(); from += RENEW_BATCH) {
                List<String> batch = members.subList(from, Math.min(members.size(), from + RENEW_BATCH));
                Object[] args = new Object[1 + batch.size()];
                args[0] = Long.toString(leaseMs);
                for (int i = 0; i < batch.size(); i++) {
                    args[1 + i] = batch.get(i);
                }
                guard.call(() -> RENEW.run(redis, List.of(key), args), (message, cause) ->
                        new LimiterUnavailableException("lease renewal unavailable: " + message, cause))
                        .whenComplete((reply, error) -> {
                            if (error != null) {
                                log.debug("leases in {} not renewed: {}", key, error.getMessage());
                            } else if ((Long) reply.get(0) > 0) {
                                log.warn("{} leases in {} had lapsed (Redis out of reach) and were taken again",
                                        reply.get(0), key);
                            }
                        });
            }
        });
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
