package io.trunkgate.limit;

import io.trunkgate.pace.SlotRequest;
import java.util.List;
import java.util.Optional;

/**
 * One call to admit: its key, the call's identity (the SIP layer sends Call-ID, From tag and CSeq: a copy of an
 * admitted call is refused as a duplicate, never counted again), its weight (units of capacity it uses, normally 1), its peer's scope and optionally the group's;
 * optionally the slot of the carrier it goes to first, reserved fleet-wide with the admission when the call is
 * admitted ({@link AdmissionDecision#firstSlot}).
 */
public record AdmissionRequest(String callKey, int weight, Scope peer, Optional<Scope> group,
                               Optional<SlotRequest> firstSlot) {

    public AdmissionRequest {
        if (callKey == null || callKey.isEmpty()) {
            throw new IllegalArgumentException("callKey is required");
        }
        if (weight < 1) {
            throw new IllegalArgumentException("weight must be at least 1: " + weight);
        }
        if (peer.kind() != Scope.Kind.PEER) {
            throw new IllegalArgumentException("peer scope expected: " + peer);
        }
        group = group == null ? Optional.empty() : group;
        firstSlot = firstSlot == null ? Optional.empty() : firstSlot;
        group.ifPresent(g -> {
            if (g.kind() != Scope.Kind.GROUP) {
                throw new IllegalArgumentException("group scope expected: " + g);
            }
        });
    }

    public AdmissionRequest(String callKey, int weight, Scope peer, Optional<Scope> group) {
        this(callKey, weight, peer, group, Optional.empty());
    }

    /** The same request, with the carrier slot to reserve if the call is admitted. */
    public AdmissionRequest withFirstSlot(SlotRequest slot) {
        return new AdmissionRequest(callKey, weight, peer, group, Optional.of(slot));
    }

    public static AdmissionRequest of(String callKey, Scope peer) {
        return new AdmissionRequest(callKey, 1, peer, Optional.empty());
    }

    /** The scopes in the order they are checked: the peer, then its group. */
    public List<Scope> scopes() {
        return group.map(g -> List.of(peer, g)).orElse(List.of(peer));
    }
}
