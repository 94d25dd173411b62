package io.trunkgate.health.internal;

import io.trunkgate.health.Caller;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The calls one carrier lately answered 503 with Retry-After, by peer and number: evidence that the carrier itself
 * asks to be left alone once, within {@code window}, they come from {@code quorum} different peers each for a
 * number of its own. A carrier refuses single destinations that way too, so one peer dialling one refused
 * number, however often, never gets there. Memory is bounded: per peer its latest {@code quorum} numbers.
 */
final class RetryAfterEvidence {

    private final int quorum;
    private final Duration window;
    /** Per peer, the numbers refused and when (each peer's at most {@code quorum}, the latest). */
    private final Map<String, LinkedHashMap<String, Instant>> refused = new HashMap<>();

    RetryAfterEvidence(int quorum, Duration window) {
        this.quorum = quorum;
        this.window = window;
    }

    /**
     * Takes in one such answer at {@code now}; true when the evidence is complete with it (then it starts over, so
     * the next hold needs evidence of its own).
     */
    synchronized boolean confirms(Caller caller, Instant now) {
        LinkedHashMap<String, Instant> numbers = refused.computeIfAbsent(caller.peer(), peer -> new LinkedHashMap<>());
        numbers.remove(caller.number());
        numbers.put(caller.number(), now);
        if (numbers.size() > quorum) {
            numbers.remove(numbers.keySet().iterator().next());
        }
        Instant oldest = now.minus(window);
        for (Iterator<LinkedHashMap<String, Instant>> peers = refused.values().iterator(); peers.hasNext(); ) {
            LinkedHashMap<String, Instant> ofPeer = peers.next();
            ofPeer.values().removeIf(at -> at.isBefore(oldest));
            if (ofPeer.isEmpty()) {
                peers.remove();
            }
        }
        if (pairs() >= quorum) {
            refused.clear();
            return true;
        }
        return false;
    }

    /**
     * How many peers can each be given a number of its own among those refused to it (a bipartite matching, by
     * augmenting paths, stopping at {@code quorum}): one peer's many numbers and many peers' one number count once.
     */
    private int pairs() {
        Map<String, String> peerOfNumber = new HashMap<>();
        int pairs = 0;
        for (String peer : refused.keySet()) {
            if (pairs >= quorum) {
                break;
            }
            if (augment(peer, peerOfNumber, new HashSet<>())) {
                pairs++;
            }
        }
        return pairs;
    }

    private boolean augment(String peer, Map<String, String> peerOfNumber, Set<String> visited) {
        for (String number : refused.get(peer).keySet()) {
            if (visited.add(number)) {
                String holder = peerOfNumber.get(number);
                if (holder == null || augment(holder, peerOfNumber, visited)) {
                    peerOfNumber.put(number, peer);
                    return true;
                }
            }
        }
        return false;
    }
}
