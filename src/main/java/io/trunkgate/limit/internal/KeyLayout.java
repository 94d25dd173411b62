package io.trunkgate.limit.internal;

import io.trunkgate.config.Limit;
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
 *   {prefix}:{g:wholesale}:peer:acme:86400000:60000:v2 1 d window at 1 min precision (hash, with block sums)
 *   {prefix}:{g:wholesale}:peer:acme:1000:s8       a shadow 8/s beside an enforced limit of the same window
 *   {prefix}:{g:wholesale}:peer:acme:1000:s8:seen  the calls that shadow limit counted (its dedupe set)
 *   {prefix}:{g:wholesale}:group:wholesale:1000     the group's own window
 *   {prefix}:{g:wholesale}:block:peer:acme          manual block (string with a TTL)
 *   {prefix}:{g:wholesale}:seen:peer:acme           calls admitted, for dedupe beyond the exact windows (sorted set)
 *   {prefix}:{g:wholesale}:leases:peer:acme         calls of acme in progress (sorted set of leases)
 *   {prefix}:{g:wholesale}:leases:group:wholesale   calls of the group in progress
 *   {prefix}:{c:carrier-a}:leases                   calls in progress at carrier-a (its pacing key's tag)
 * </pre>
 */
public record KeyLayout(String prefix) {

    public String tag(String peerId, Optional<String> groupId) {
        return groupId.map(KeyLayout::groupTag).orElse("p:" + peerId);
    }

    static String groupTag(String groupId) {
        return "g:" + groupId;
    }

    /**
     * The window key of a limit. Limits of a scope with the same window and precision share it (they count the
     * same calls), except a shadow limit beside a limit of that window that is enforced or has another max: it
     * records calls the others do not, so it keeps its own ({@code :s<max>} after the window). A lone shadow limit
     * has the key it would have if enforced, so switching it to enforce keeps what its window counted.
     */
    public String limitKey(String tag, Scope scope, Limit limit) {
        boolean ownKey = limit.shadow() && scope.limits().stream()
                .anyMatch(other -> other.sameWindow(limit) && (!other.shadow() || other.max() != limit.max()));
        String base = scopeKey(tag, scope.kind(), scope.id()) + ":" + limit.window().toMillis()
                + (ownKey ? ":s" + limit.max() : "");
        // ":v2": the hash with block sums (lua/README.md); hashes of the layout before it are left to expire
        return limit.precision().map(p -> base + ":" + p.toMillis() + ":v2").orElse(base);
    }

    /**
     * The calls a shadow limit counted, kept while it or the enforced limits may still count them: its own dedupe set
     * (used unless it is an exact window at least that long), as the peer's seen key is the enforced limits'
     * (lua/README.md, Shadow limits). Enforced limits have none.
     */
    public Optional<String> shadowSeenKey(String tag, Scope scope, Limit limit) {
        return limit.shadow()
                ? Optional.of(limitKey(tag, scope, limit) + ":seen") : Optional.empty();
    }

    /** The admitted calls of a peer, kept while a precision window may still count them (dedupe). */
    public String seenKey(String tag, String peerId) {
        return prefix + ":{" + tag + "}:seen:peer:" + peerId;
    }

    /**
     * All keys of a peer's own under {@code tag}: its block key, one per limit (and a shadow precision limit's seen
     * key), its seen key, its lease set.
     */
    List<Object> peerKeys(String tag, Scope peer) {
        List<Object> keys = new ArrayList<>();
        keys.add(blockKey(tag, peer.kind(), peer.id()));
        peer.limits().forEach(limit -> {
            keys.add(limitKey(tag, peer, limit));
            shadowSeenKey(tag, peer, limit).ifPresent(keys::add);
        });
        keys.add(seenKey(tag, peer.id()));
        keys.add(leaseKey(tag, peer.kind(), peer.id()));
        return keys;
    }

    /** The leases of a scope's calls in progress, under the tag of the peer's admission keys. */
    public String leaseKey(String tag, Scope.Kind kind, String id) {
        return prefix + ":{" + tag + "}:leases:" + kind.name().toLowerCase(Locale.ROOT) + ":" + id;
    }

    /** The leases of a carrier's calls in progress, in the slot of the carrier's pacing key. */
    public String carrierLeaseKey(String carrierId) {
        return prefix + ":{c:" + carrierId + "}:leases";
    }

    public String blockKey(String tag, Scope.Kind kind, String id) {
        return prefix + ":{" + tag + "}:block:" + kind.name().toLowerCase(Locale.ROOT) + ":" + id;
    }

    private String scopeKey(String tag, Scope.Kind kind, String id) {
        return prefix + ":{" + tag + "}:" + kind.name().toLowerCase(Locale.ROOT) + ":" + id;
    }
}
