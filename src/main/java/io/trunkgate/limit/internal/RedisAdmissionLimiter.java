package io.trunkgate.limit.internal;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.LimiterUnavailableException;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WouldRefuse;
import io.trunkgate.pace.Reservation;
import io.trunkgate.redis.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.redisson.api.RedissonClient;

/** Admission through lua/admit.lua: one script call per decision, whatever the number of limits. */
public final class RedisAdmissionLimiter implements AdmissionLimiter {

    static final LuaScript ADMIT = LuaScript.fromResource("admit.lua");
    private static final LuaScript ADMIT_PACE = LuaScript.composed("admit-pace.lua", "admit.lua", "pace.lua");
    private static final LuaScript REVOKE = LuaScript.fromResource("revoke.lua");
    private static final LuaScript TAKE_KEYS = LuaScript.fromResource("take-keys.lua");
    private static final LuaScript MERGE_KEYS = LuaScript.fromResource("merge-keys.lua");

    private final RedissonClient redis;
    private final KeyLayout layout;
    /** One plan per peer id, replaced when a reload changes the peer's scopes, so reloads do not grow it. */
    private final ConcurrentMap<String, AdmissionPlan> plans = new ConcurrentHashMap<>();
    /** Where admitted calls' leases are kept; empty: max-concurrent caps are not enforced. */
    private final Optional<RedisCallLeases> leases;

    public RedisAdmissionLimiter(RedissonClient redis, String keyPrefix) {
        this(redis, keyPrefix, Optional.empty());
    }

    /** With {@code leases}, a scope's max-concurrent is checked and its lease taken in the same script call. */
    public RedisAdmissionLimiter(RedissonClient redis, String keyPrefix, Optional<RedisCallLeases> leases) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
        this.leases = leases;
    }

    @Override
    public CompletionStage<AdmissionDecision> admit(AdmissionRequest request) {
        AdmissionPlan plan = plan(request);
        String member = CallMember.of(request.callKey());
        boolean leased = leases.isPresent() && plan.leased();
        List<Object> keys = leased ? plan.admitKeys() : plan.keys();
        Object[] args = leased ? plan.admitArgs(member, request.weight(), leases.get().member(request.callKey()),
                leases.get().leaseMs()) : plan.args(member, request.weight());
        CompletionStage<List<Object>> reply = request.firstSlot()
                .map(slot -> ADMIT_PACE.run(redis, append(keys, slot.ledgerKey()), append(args, slot.scriptArgs())))
                .orElseGet(() -> ADMIT.run(redis, keys, args));
        return reply.thenApply(r -> decode(plan, r, request))
                .thenApply(decision -> {
                    if (decision.admitted() && plan.leased()) {
                        leases.ifPresent(l -> l.admitted(request.callKey(), caps(plan, decision)));
                    }
                    return decision;
                })
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(new LimiterUnavailableException(
                        "admission for " + request.peer() + " failed: " + rootMessage(error), error)));
    }

    /**
     * Undoes an admission ({@link Outcome#ADMITTED}, as decided at {@code decision.serverTimeMicros()}) that
     * the gateway never used, through lua/revoke.lua.
     */
    public CompletionStage<Void> revoke(AdmissionRequest request, AdmissionDecision decision) {
        AdmissionPlan plan = plan(request);
        Object[] admitArgs = plan.args(CallMember.of(request.callKey()), request.weight());
        Object[] args = Arrays.copyOf(admitArgs, admitArgs.length + 1);
        args[admitArgs.length] = Long.toString(decision.serverTimeMicros());
        leases.ifPresent(l -> l.release(request.callKey()));
        return REVOKE.run(redis, plan.keys(), args).thenApply(removed -> (Void) null);
    }

    /**
     * Carries a peer's windows, dedupe set, block and lease set over to its new hash tag after a reload moved it
     * into, out of or between groups (lua/take-keys.lua on the old tag's slot, then lua/merge-keys.lua on the new
     * one). Every gateway runs it at its own reload; each takes what was counted under the old tag so far, and its
     * own calls in progress then renew and release their peer leases under the new tag. Group windows and group
     * lease sets stay with their group: the peer's calls in progress still count in the old group's until they end.
     * When the peer's dedupe set was an exact window that does not move under its own name into the dedupe set
     * under the new tag (the old group's, or the peer's own when the new limits dedupe through the seen key), its
     * members are copied into the new seen key, so a call admitted before the move is still a duplicate after it.
     *
     * @param peer      the peer's scope before the move (its limits)
     * @param fromGroup its group before, with that group's limits
     * @param toGroup   its group after, with that group's limits
     */
    public CompletionStage<Void> movePeer(Scope peer, Optional<Scope> fromGroup, Optional<Scope> toGroup) {
        String from = layout.tag(peer.id(), fromGroup.map(Scope::id));
        String to = layout.tag(peer.id(), toGroup.map(Scope::id));
        if (from.equals(to)) {
            return CompletableFuture.completedFuture(null);
        }
        // Renewals from now on go to the new tag; a lease not there yet is taken again there under the cap.
        leases.ifPresent(l -> l.moved(layout.leaseKey(from, Scope.Kind.PEER, peer.id()),
                layout.leaseKey(to, Scope.Kind.PEER, peer.id())));
        List<Object> take = new ArrayList<>();
        List<Object> merge = new ArrayList<>();
        Optional<String> dedupeBefore = dedupeKey(from, peer, fromGroup);
        String seenAfter = layout.seenKey(to, peer.id());
        boolean carryDedupe = dedupeBefore.filter(key -> !key.equals(layout.seenKey(from, peer.id()))).isPresent()
                && dedupeKey(to, peer, toGroup).filter(seenAfter::equals).isPresent();
        if (carryDedupe) {
            take.add(dedupeBefore.get());
            merge.add(seenAfter);
        }
        take.addAll(layout.peerKeys(from, peer));
        merge.addAll(layout.peerKeys(to, peer));
        return TAKE_KEYS.run(redis, take, carryDedupe ? "1" : "0")
                .thenCompose(taken -> MERGE_KEYS.run(redis, merge, taken.toArray()))
                .thenApply(merged -> (Void) null);
    }

    /**
     * The set admit.lua looks a call up in to tell a duplicate, for a peer (and group) under {@code tag}: the
     * longest enforced exact window when no enforced window counts a call for longer, else the peer's seen key; none
     * without enforced limits (shadow limits keep their own).
     */
    private Optional<String> dedupeKey(String tag, Scope peer, Optional<Scope> group) {
        List<Scope> scopes = new ArrayList<>();
        scopes.add(peer);
        group.ifPresent(scopes::add);
        String longestExact = null;
        long longestExactMs = -1;
        long horizonMs = 0;
        for (Scope scope : scopes) {
            for (Limit limit : scope.limits()) {
                long windowMs = limit.window().toMillis();
                long precisionMs = limit.precision().map(Duration::toMillis).orElse(0L);
                if (limit.shadow()) {
                    continue;
                }
                if (precisionMs == 0 && windowMs > longestExactMs) {
                    longestExact = layout.limitKey(tag, scope, limit);
                    longestExactMs = windowMs;
                }
                horizonMs = Math.max(horizonMs, windowMs + precisionMs);
            }
        }
        if (longestExact != null && longestExactMs >= horizonMs) {
            return Optional.of(longestExact);
        }
        return horizonMs > 0 ? Optional.of(layout.seenKey(tag, peer.id())) : Optional.empty();
    }

    /**
     * The lease sets where the admitted call holds a lease, each with its cap: those of the plan's capped scopes,
     * less a shadow cap that was full (admit.lua took no lease there, as its refusal would not have).
     */
    private static Map<String, Integer> caps(AdmissionPlan plan, AdmissionDecision decision) {
        Map<String, Integer> caps = plan.cappedLeaseKeys();
        decision.wouldRefuse().stream().filter(w -> w.limit().isEmpty())
                .forEach(w -> caps.remove((String) plan.leaseKeys().get(plan.scopes().indexOf(w.scope()))));
        return caps;
    }

    AdmissionPlan plan(AdmissionRequest request) {
        List<Scope> scopes = request.scopes();
        AdmissionPlan plan = plans.get(request.peer().id());
        if (plan == null || !plan.scopes().equals(scopes)) {
            plan = AdmissionPlan.build(layout, layout.tag(request.peer().id(), request.group().map(Scope::id)), scopes);
            plans.put(request.peer().id(), plan);
        }
        return plan;
    }

    int cachedPlans() {
        return plans.size();
    }

    private static List<Object> append(List<Object> keys, String key) {
        List<Object> all = new ArrayList<>(keys.size() + 1);
        all.addAll(keys);
        all.add(key);
        return all;
    }

    private static Object[] append(Object[] args, List<String> more) {
        Object[] all = Arrays.copyOf(args, args.length + more.size());
        for (int i = 0; i < more.size(); i++) {
            all[args.length + i] = more.get(i);
        }
        return all;
    }

    /** admit.lua's reply, and with it lua/admit-pace.lua's reservation when the request asked for one. */
    static AdmissionDecision decode(AdmissionPlan plan, List<Object> reply, AdmissionRequest request) {
        long retryMs = (Long) reply.get(1);
        int scopeIndex = ((Long) reply.get(2)).intValue();
        int limitIndex = ((Long) reply.get(3)).intValue();
        long remaining = (Long) reply.get(4);
        long now = (Long) reply.get(5);
        Outcome outcome = switch ((String) reply.get(6)) {
            case "ok" -> Outcome.ADMITTED;
            case "duplicate" -> Outcome.DUPLICATE;
            case "limit" -> Outcome.LIMITED;
            case "blocked" -> Outcome.BLOCKED;
            case "too-heavy" -> Outcome.TOO_HEAVY;
            case "concurrent" -> Outcome.CONCURRENT;
            default -> throw new IllegalStateException("admit.lua replied with unknown reason " + reply.get(6));
        };
        Optional<Scope> scope = scopeIndex > 0 ? Optional.of(plan.scopes().get(scopeIndex - 1)) : Optional.empty();
        Optional<Limit> limit = scope.filter(s -> limitIndex > 0).map(s -> s.limits().get(limitIndex - 1));
        Duration retryAfter = retryMs > 0 ? Duration.ofMillis(retryMs) : Duration.ZERO;
        Optional<Reservation> slot = reply.size() > 8
                ? request.firstSlot().map(r -> r.reservation(reply.subList(8, 12))) : Optional.empty();
        return new AdmissionDecision(outcome, retryAfter, scope, limit, remaining, now, slot,
                wouldRefuse(plan, (String) reply.get(7)));
    }

    /** admit.lua's would_refuse: "scope.limit" pairs (1-based; limit 0 = the scope's cap) joined by spaces. */
    private static List<WouldRefuse> wouldRefuse(AdmissionPlan plan, String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        List<WouldRefuse> over = new ArrayList<>();
        for (String pair : text.split(" ")) {
            int dot = pair.indexOf('.');
            Scope scope = plan.scopes().get(Integer.parseInt(pair.substring(0, dot)) - 1);
            int index = Integer.parseInt(pair.substring(dot + 1));
            over.add(new WouldRefuse(scope, index == 0 ? Optional.empty() : Optional.of(scope.limits().get(index - 1))));
        }
        return over;
    }

    private static String rootMessage(Throwable error) {
        Throwable t = error;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName() + ": " + t.getMessage();
    }
}
