package io.trunkgate.limit.internal;

import io.trunkgate.limit.Limit;
import io.trunkgate.limit.Scope;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Names of the admission keys. Every key of one admission carries the same hash tag so that the script
 * runs on one Redis Cluster slot: the group's tag when the peer has a group, else the peer's.
 * <pre>
 *   {prefix}:{g:wholesale}:peer:acme:1000          exact 1 s window of peer acme (sorted set)
 *   {prefix}:{g:wholesale}:peer:acme:86400000:60000 1 d window at 1 min precision (hash)
 *   {prefix}:{g:wholesale}:group:wholesale:1000     the group's own window
 *   {prefix}:{g:wholesale}:block:peer:acme          manual block (string with a TTL)
 *   {prefix}:{g:wholesale}:seen:peer:acme           calls admitted, for dedupe beyond the exact windows (sorted set)
 * </pre>
 */
public record KeyLayout(String prefix) {

    public String tag(String peerId, Optional<String> groupId) {
        return groupId.map(g -> "g:" + g).orElse("p:" + peerId);
    }

    public String limitKey(String tag, Scope scope, Limit limit) {
        String base = scopeKey(tag, scope.kind(), scope.id()) + ":" + limit.window().toMillis();
        return limit.precision().map(p -> base + ":" + p.toMillis()).orElse(base);
    }

    /** The admitted calls of a peer, kept while a precision window may still count them (dedupe). */
    public String seenKey(String tag, String peerId) {
        return prefix + ":{" + tag + "}:seen:peer:" + peerId;
    }

    /** All keys of a peer's own under {@code tag}: its block key, one per limit, its seen key. */
    List<Object> peerKeys(String tag, Scope peer) {
        List<Object> keys = new ArrayList<>();
        keys.add(blockKey(tag, peer.kind(), peer.id()));
        peer.limits().forEach(limit -> keys.add(limitKey(tag, peer, limit)));
        keys.add(seenKey(tag, peer.id()));
        return keys;
    }

    public String blockKey(String tag, Scope.Kind kind, String id) {
        return prefix + ":{" + tag + "}:block:" + kind.name().toLowerCase(Locale.ROOT) + ":" + id;
    }

    private String scopeKey(String tag, Scope.Kind kind, String id) {
        return prefix + ":{" + tag + "}:" + kind.name().toLowerCase(Locale.ROOT) + ":" + id;
    }
}
