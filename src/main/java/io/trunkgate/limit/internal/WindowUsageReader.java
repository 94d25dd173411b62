package io.trunkgate.limit.internal;

import io.trunkgate.config.Limit;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WindowUsage;
import io.trunkgate.redis.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.redisson.api.RedissonClient;

/**
 * Reads the live state of a peer's admission windows (lua/usage.lua) without changing it: how much of each
 * limit is used right now, and the newest calls in each exact window.
 */
public final class WindowUsageReader implements WindowUsage {

    private static final LuaScript USAGE = LuaScript.fromResource("usage.lua");

    private final RedissonClient redis;
    private final KeyLayout layout;

    public WindowUsageReader(RedissonClient redis, String keyPrefix) {
        this.redis = redis;
        this.layout = new KeyLayout(keyPrefix);
    }

    /** In one script call: all keys share the peer's hash tag. */
    @Override
    public CompletionStage<List<LimitUsage>> read(Scope peer, Optional<Scope> group, int listCalls) {
        String tag = layout.tag(peer.id(), group.map(Scope::id));
        List<Scope> scopes = group.map(g -> List.of(peer, g)).orElse(List.of(peer));
        List<Object> keys = new ArrayList<>();
        List<Object> args = new ArrayList<>();
        List<Scope> owners = new ArrayList<>();
        List<Limit> limits = new ArrayList<>();
        args.add(Integer.toString(listCalls));
        for (Scope scope : scopes) {
            for (Limit limit : scope.limits()) {
                keys.add(layout.limitKey(tag, scope, limit));
                args.add(Long.toString(limit.window().toMillis()));
                args.add(Long.toString(limit.precision().map(Duration::toMillis).orElse(0L)));
                owners.add(scope);
                limits.add(limit);
            }
        }
        if (keys.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        return USAGE.run(redis, keys, args.toArray()).thenApply(reply -> {
            long now = (Long) reply.get(0);
            List<LimitUsage> usage = new ArrayList<>();
            for (int i = 0; i < limits.size(); i++) {
                List<?> entry = (List<?>) reply.get(i + 1);
                usage.add(new LimitUsage(owners.get(i), limits.get(i), (Long) entry.get(0),
                        calls((List<?>) entry.get(1)), now));
            }
            return usage;
        });
    }

    private static List<WindowCall> calls(List<?> flat) {
        List<WindowCall> calls = new ArrayList<>();
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            calls.add(new WindowCall((String) flat.get(i), (long) Double.parseDouble((String) flat.get(i + 1))));
        }
        return calls;
    }
}
