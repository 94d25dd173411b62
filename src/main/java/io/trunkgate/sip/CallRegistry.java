package io.trunkgate.sip;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;

/**
 * The INVITEs in progress, by Call-ID and top Via branch, which is how a CANCEL names the INVITE it
 * cancels (RFC 3261 §9.2).
 */
public final class CallRegistry {

    private final ConcurrentMap<String, InviteCall> calls = new ConcurrentHashMap<>();
    /** How many of the calls have each Call-ID (a caller may send a second INVITE with a new branch). */
    private final ConcurrentMap<String, Integer> callIds = new ConcurrentHashMap<>();

    static String key(Request request) {
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        return callId.getCallId() + "|" + Objects.requireNonNullElse(SipMessages.topBranch(request), "");
    }

    void add(InviteCall call) {
        if (calls.put(call.key(), call) == null) {
            callIds.merge(call.callId(), 1, Integer::sum);
        }
    }

    void remove(InviteCall call) {
        if (calls.remove(call.key(), call)) {
            callIds.computeIfPresent(call.callId(), (id, count) -> count == 1 ? null : count - 1);
        }
    }

    /** Whether an INVITE with this Call-ID is in progress. */
    boolean hasCallId(String callId) {
        return callIds.containsKey(callId);
    }

    Optional<InviteCall> find(Request cancel) {
        return Optional.ofNullable(calls.get(key(cancel)));
    }

    /** The Call-IDs of the INVITEs in progress. */
    public Set<String> callIds() {
        return Set.copyOf(callIds.keySet());
    }

    /** INVITEs not yet answered finally, for metrics and shutdown. */
    public int size() {
        return calls.size();
    }

    /** INVITEs in progress that have no dialog yet (being admitted or held for a slot), for drain. */
    public int notForwarded() {
        return (int) calls.values().stream().filter(call -> !call.forwarded()).count();
    }

    /** Drain: answers every call still being admitted or held 503; calls at a carrier go on. */
    public void abortHeld() {
        calls.values().forEach(InviteCall::abortHeld);
    }

    /** Answers every held call with 503 and cancels forwarded ones, for shutdown. */
    public void abortAll() {
        calls.values().forEach(InviteCall::abort);
    }
}
