package io.trunkgate.sip;

import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;

/**
 * The INVITEs in progress, by Call-ID and top Via branch, which is how a CANCEL names the INVITE it
 * cancels (RFC 3261 §9.2), and by Call-ID and From tag, which no second INVITE outside a dialog may share with
 * one in progress.
 */
public final class CallRegistry {

    private final ConcurrentMap<String, InviteCall> calls = new ConcurrentHashMap<>();
    /** The calls by Call-ID and From tag: one at a time (a second is refused as merged, see SipProxy). */
    private final ConcurrentMap<String, InviteCall> byCaller = new ConcurrentHashMap<>();

    static String key(Request request) {
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        return callId.getCallId() + "|" + Objects.requireNonNullElse(SipMessages.topBranch(request), "");
    }

    private static String callerKey(String callId, String fromTag) {
        return callId + '\n' + fromTag;
    }

    /**
     * Adds the call unless an INVITE with its Call-ID and From tag is already in progress: then it is not added
     * and the answer is false.
     */
    boolean add(InviteCall call) {
        if (byCaller.putIfAbsent(callerKey(call.identity().callId(), call.identity().fromTag()), call) != null) {
            return false;
        }
        calls.put(call.key(), call);
        return true;
    }

    void remove(InviteCall call) {
        calls.remove(call.key(), call);
        byCaller.remove(callerKey(call.identity().callId(), call.identity().fromTag()), call);
    }

    /** Whether an INVITE with this Call-ID and From tag is in progress. */
    boolean inProgress(String callId, String fromTag) {
        return callId != null && byCaller.containsKey(callerKey(callId, fromTag == null ? "" : fromTag));
    }

    Optional<InviteCall> find(Request cancel) {
        return Optional.ofNullable(calls.get(key(cancel)));
    }

    /** The identities ({@link CallIdentity#key}) of the INVITEs in progress. */
    public Set<String> callKeys() {
        return calls.values().stream().map(call -> call.identity().key()).collect(Collectors.toSet());
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
