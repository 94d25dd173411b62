package io.trunkgate.limit.internal;

import io.trunkgate.limit.Limit;
import io.trunkgate.limit.Scope;
import java.util.ArrayList;
import java.util.List;

/**
 * The KEYS and the limit part of ARGV of admit.lua for one set of scopes, built once per peer
 * configuration and reused for every call of that peer.
 */
record AdmissionPlan(List<Scope> scopes, List<Object> keys, List<Object> limitArgs) {

    static AdmissionPlan build(KeyLayout layout, String tag, List<Scope> scopes) {
        List<Object> keys = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        args.add(Integer.toString(scopes.size()));
        for (Scope scope : scopes) {
            keys.add(layout.blockKey(tag, scope.kind(), scope.id()));
            args.add(Integer.toString(scope.limits().size()));
            for (Limit limit : scope.limits()) {
                keys.add(layout.limitKey(tag, scope, limit));
                args.add(Long.toString(limit.window().toMillis()));
                args.add(Long.toString(limit.max()));
                args.add(Long.toString(limit.precision().map(java.time.Duration::toMillis).orElse(0L)));
            }
        }
        keys.add(layout.seenKey(tag, scopes.get(0).id()));
        return new AdmissionPlan(List.copyOf(scopes), List.copyOf(keys), List.copyOf(args));
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
}
