package io.trunkgate.limit;

import java.util.List;
import java.util.Objects;

/** Whose limits a call is checked against: a peer, or the group of peers it belongs to. */
public record Scope(Kind kind, String id, List<Limit> limits) {

    public enum Kind { PEER, GROUP }

    public Scope {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
        limits = List.copyOf(limits);
    }

    public static Scope peer(String id, List<Limit> limits) {
        return new Scope(Kind.PEER, id, limits);
    }

    public static Scope group(String id, List<Limit> limits) {
        return new Scope(Kind.GROUP, id, limits);
    }

    @Override
    public String toString() {
        return kind.name().toLowerCase(java.util.Locale.ROOT) + ":" + id;
    }
}
