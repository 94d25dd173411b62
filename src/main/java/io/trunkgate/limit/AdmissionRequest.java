package io.trunkgate.limit;

import java.util.List;
import java.util.Optional;

/**
 * One call to admit: its Call-ID (a retransmission or failover attempt of an admitted call is not counted
 * again), its weight (units of capacity it uses, normally 1), its peer's scope and optionally the group's.
 */
public record AdmissionRequest(String callId, int weight, Scope peer, Optional<Scope> group) {

    public AdmissionRequest {
        if (callId == null || callId.isEmpty()) {
            throw new IllegalArgumentException("callId is required");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1: " + weight);
        }
        if (peer.kind() != Scope.Kind.PEER) {
            throw new IllegalArgumentException("peer scope expected: " + peer);
        }
        group = group == null ? Optional.empty() : group;
        group.ifPresent(g -> {
            if (g.kind() != Scope.Kind.GROUP) {
                throw new IllegalArgumentException("group scope expected: " + g);
            }
        });
    }

    public static AdmissionRequest of(String callId, Scope peer) {
        return new AdmissionRequest(callId, 1, peer, Optional.empty());
    }

    /** The scopes in the order they are checked: the peer, then its group. */
    public List<Scope> scopes() {
        return group.map(g -> List.of(peer, g)).orElse(List.of(peer));
    }
}
