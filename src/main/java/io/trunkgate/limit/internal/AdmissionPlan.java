package io.trunkgate.limit.internal;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.Scope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The KEYS and the limit part of ARGV of admit.lua for one set of scopes, built once per peer
 * configuration and reused for every call of that peer. {@code keys} are the rate keys (what revoke.lua
 * takes too); {@code leaseKeys} and {@code caps} are the concurrent-call part, empty when no scope has a cap.
 */
record AdmissionPlan(List<Scope> scopes, List<Object> keys, List<Object> limitArgs, List<Object> leaseKeys,
                     List<Object> caps) {

    /** A limit's or cap's mode in ARGV. */
    private static final String ENFORCE = "0";
    private static final String SHADOW = "1";

    static AdmissionPlan build(KeyLayout layout, String tag, List<Scope> scopes) {
        List<Object> keys = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        List<Object> leaseKeys = new ArrayList<>();
        List<Object> caps = new ArrayList<>();
        args.add(Integer.toString(scopes.size()));
        for (Scope scope : scopes) {
            keys.add(layout.blockKey(tag, scope.kind(), scope.id()));
            args.add(Integer.toString(scope.limits().size()));
            for (Limit limit : scope.limits()) {
                keys.add(layout.limitKey(tag, scope, limit));
                layout.shadowSeenKey(tag, scope, limit).ifPresent(keys::add);
                args.add(Long.toString(limit.window().toMillis()));
                args.add(Long.toString(limit.max()));
                args.add(Long.toString(limit.precision().map(java.time.Duration::toMillis).orElse(0L)));
                args.add(limit.shadow() ? SHADOW : ENFORCE);
            }
            leaseKeys.add(layout.leaseKey(tag, scope.kind(), scope.id()));
            caps.add(Integer.toString(scope.maxConcurrent().orElse(0)));
            caps.add(scope.shadowCap() ? SHADOW : ENFORCE);
        }
        keys.add(layout.seenKey(tag, scopes.get(0).id()));
        boolean capped = scopes.stream().anyMatch(scope -> scope.maxConcurrent().isPresent());
        return new AdmissionPlan(List.copyOf(scopes), List.copyOf(keys), List.copyOf(args),
                capped ? List.copyOf(leaseKeys) : List.of(), capped ? List.copyOf(caps) : List.of());
    }

    boolean leased() {
        return !leaseKeys.isEmpty();
    }

    /** The lease sets of the capped scopes, where an admitted call holds a lease, each with its cap. */
    Map<String, Integer> cappedLeaseKeys() {
        Map<String, Integer> capped = new LinkedHashMap<>();
        for (int i = 0; i < leaseKeys.size(); i++) {
            int cap = Integer.parseInt((String) caps.get(2 * i));
            if (cap > 0) {
                capped.put((String) leaseKeys.get(i), cap);
            }
        }
        return capped;
    }

    /** KEYS of admit.lua: the rate keys, then the lease keys when a scope has a cap. */
    List<Object> admitKeys() {
        if (!leased()) {
            return keys;
        }
        List<Object> all = new ArrayList<>(keys);
        all.addAll(leaseKeys);
        return all;
    }

    Object[] args(String member, int weight) {
        Object[] args = new Object[2 + limitArgs.size()];
        args[0] = member;
        args[1] = Integer.toString(weight);
        for (int i = 0; i < limitArgs.size(); i++) {
            args[2 + i] = limitArgs.get(i);
        }
        return args;
    }

    /** ARGV of admit.lua: {@link #args}, then the lease part when a scope has a cap. */
    Object[] admitArgs(String member, int weight, String leaseMember, long leaseMs) {
        Object[] rate = args(member, weight);
        if (!leased()) {
            return rate;
        }
        Object[] all = java.util.Arrays.copyOf(rate, rate.length + 2 + caps.size());
        all[rate.length] = leaseMember;
        all[rate.length + 1] = Long.toString(leaseMs);
        for (int i = 0; i < caps.size(); i++) {
            all[rate.length + 2 + i] = caps.get(i);
        }
        return all;
    }
}
