package io.trunkgate.sip;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.stream.Collectors;
import javax.sip.header.CallIdHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;

/**
 * The INVITEs in progress, by Call-ID and top Via branch, which is how a CANCEL names the INVITE it
 * cancels (RFC 3261 §9.2).
 */
public final class CallRegistry {

    private final ConcurrentMap<String, InviteCall> calls = new ConcurrentHashMap<>();

    static String key(Request request) {
        CallIdHeader callId = (CallIdHeader) request.getHeader(CallIdHeader.NAME);
        ViaHeader via = (ViaHeader) request.getHeader(ViaHeader.NAME);
        return callId.getCallId() + "|" + (via == null ? "" : via.getBranch());
    }

    void add(InviteCall call) {
        calls.put(call.key(), call);
    }

    void remove(InviteCall call) {
        calls.remove(call.key(), call);
    }

    Optional<InviteCall> find(Request cancel) {
        return Optional.ofNullable(calls.get(key(cancel)));
    }

    /** The Call-IDs of the INVITEs in progress. */
    public Set<String> callIds() {
        return calls.values().stream().map(InviteCall::callId).collect(Collectors.toSet());
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
