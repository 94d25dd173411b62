package io.trunkgate.sip;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.sip.header.CallIdHeader;
import javax.sip.message.Request;

/**
 * The INVITEs in progress, by Call-ID and top Via branch, which is how a CANCEL names the INVITE it
 * cancels (RFC 3261 §9.2), and by Call-ID and From tag, which no second INVITE outside a dialog may share with
 * one in progress; and the calls refused lately, by identity ({@link CallIdentity}), whose callers may still send
 * copies of their INVITE: a copy is answered as the call was, never taken for a call of its own.
 */
public final class CallRegistry {

    /** How long a caller sends copies of an INVITE it got no final answer to: 64*T1 (RFC 3261 §17.1.1.2). */
    static final Duration COPY_SPAN = Duration.ofSeconds(32);
    /**
     * Refused calls remembered at once. A flood refused faster than this many per {@link #COPY_SPAN} is
     * remembered for less (the oldest is forgotten first), so it cannot grow the memory; copies mostly come
     * within seconds (those already on the way when the answer left).
     */
    static final int MAX_REFUSED = 50_000;

    private final ConcurrentMap<String, InviteCall> calls = new ConcurrentHashMap<>();
    /** The calls by Call-ID and From tag: one at a time (a second is refused as merged, see SipProxy). */
    private final ConcurrentMap<String, InviteCall> byCaller = new ConcurrentHashMap<>();
    /** The calls refused lately by {@link CallIdentity#key}, oldest first (each is kept {@link #COPY_SPAN}). */
    private final Map<String, Refused> refused = new LinkedHashMap<>();
    private final LongSupplier nanoClock;
    /** Calls challenged by their carrier, waiting for the caller's retry, by Call-ID and From tag ({@link Challenge}). */
    private final ConcurrentMap<String, Challenge> challenged = new ConcurrentHashMap<>();

    /**
     * How long a challenged call waits for the caller's retry with credentials: 64*T1 (RFC 3261 §17.1.1.2), as long
     * as the caller may still be sending the challenged INVITE's copies. A user agent answers a challenge at once
     * (its credentials are stored); a retry later than this is a call of its own.
     */
    static final Duration CHALLENGE_SPAN = COPY_SPAN;

    /**
     * How a copy of a call refused lately is answered.
     *
     * @param shedReason the Reason of the 503 it was shed with before parsing, sent again to the copy; empty when
     *                   the stack answered it (its transaction answers the copy, for {@code sip.transaction-linger})
     */
    record Refused(Optional<String> shedReason, long untilNanos) {
    }

    /** @param nanoClock what the refused calls are forgotten by ({@link System#nanoTime}) */
    public CallRegistry(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

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

    /**
     * The call's final answer is about to go out: its Call-ID and From tag are free at once (its caller may send a
     * new INVITE as soon as it has the answer, to a 401 or 407 for one) and it no longer counts as in progress
     * ({@link #size()}), but it stays until {@link #remove} after the answer has left ({@link #allAnswered()}), so
     * a drain or shutdown waiting for the INVITEs to be answered does not stop the stack under an answer.
     */
    void answering(InviteCall call) {
        byCaller.remove(callerKey(call.identity().callId(), call.identity().fromTag()), call);
    }

    void remove(InviteCall call) {
        answering(call);
        calls.remove(call.key(), call);
    }

    /** Whether an INVITE with this Call-ID and From tag is in progress. */
    boolean inProgress(String callId, String fromTag) {
        return callId != null && byCaller.containsKey(callerKey(callId, fromTag == null ? "" : fromTag));
    }

    /** A call was refused (shed, or ended without an answer): copies of its INVITE are answered as it was. */
    void refused(CallIdentity identity, Optional<String> shedReason) {
        long now = nanoClock.getAsLong();
        synchronized (refused) {
            for (Iterator<Refused> oldest = refused.values().iterator(); oldest.hasNext(); ) {
                if (oldest.next().untilNanos() - now > 0 && refused.size() < MAX_REFUSED) {
                    break;
                }
                oldest.remove();
            }
            refused.remove(identity.key());
            refused.put(identity.key(), new Refused(shedReason, now + COPY_SPAN.toNanos()));
        }
    }

    /** The call with this identity refused within the last {@link #COPY_SPAN}, if one was. */
    Optional<Refused> refusedLately(CallIdentity identity) {
        Refused found;
        synchronized (refused) {
            found = refused.get(identity.key());
        }
        return Optional.ofNullable(found).filter(r -> r.untilNanos() - nanoClock.getAsLong() > 0);
    }

    /**
     * The call's carrier challenged it: {@code challenge} waits for the caller's retry, until {@link #challengeOver}.
     * A challenge of the same Call-ID and From tag still waiting (its caller started over with a lower CSeq, or
     * never retried) ends first.
     */
    void challenged(Challenge challenge) {
        Challenge before = challenged.put(callerKey(challenge.counted().callId(), challenge.counted().fromTag()),
                challenge);
        if (before != null) {
            before.over().run();
        }
    }

    /**
     * The challenge an INVITE with {@code identity} from {@code peerId} continues, taken away: its Call-ID and From
     * tag, a higher CSeq, {@code credentials} (an Authorization or Proxy-Authorization header) and the same peer.
     * Empty for any other INVITE, which is a call of its own.
     */
    Optional<Challenge> takeChallenge(CallIdentity identity, String peerId, boolean credentials) {
        if (!credentials) {
            return Optional.empty();
        }
        String key = callerKey(identity.callId(), identity.fromTag());
        Challenge found = challenged.get(key);
        if (found == null || found.cseq() >= identity.cseq() || !found.peerId().equals(peerId)
                || !challenged.remove(key, found)) {
            return Optional.empty();
        }
        return Optional.of(found);
    }

    /** No retry took {@code challenge} in time (or shutdown ends it): the call ends as its last answer said. */
    void challengeOver(Challenge challenge) {
        if (challenged.remove(callerKey(challenge.counted().callId(), challenge.counted().fromTag()), challenge)) {
            challenge.over().run();
        }
    }

    /** The INVITE in progress with this Call-ID and From tag, if one is. */
    Optional<InviteCall> inProgress(CallIdentity caller) {
        return Optional.ofNullable(byCaller.get(callerKey(caller.callId(), caller.fromTag())));
    }

    /** The INVITEs in progress (not yet finally answered), for an operator's list. */
    Collection<InviteCall> inProgress() {
        return byCaller.values();
    }

    Optional<InviteCall> find(Request cancel) {
        return Optional.ofNullable(calls.get(key(cancel)));
    }

    /**
     * The identities ({@link CallIdentity#key}) the INVITEs in progress are leased under, and those of the calls
     * waiting for a retry after a challenge.
     */
    public Set<String> callKeys() {
        Set<String> keys = calls.values().stream().map(call -> call.counted().key())
                .collect(Collectors.toCollection(HashSet::new));
        challenged.values().forEach(challenge -> keys.add(challenge.counted().key()));
        return keys;
    }

    /** INVITEs in progress: not yet finally answered, for overload control and metrics. */
    public int size() {
        return byCaller.size();
    }

    /** Whether every INVITE's final answer has left (one being sent still counts), for drain and shutdown. */
    public boolean allAnswered() {
        return calls.isEmpty();
    }

    /** INVITEs in progress that have no dialog yet (being admitted or held for a slot), for drain. */
    public int notForwarded() {
        return (int) calls.values().stream().filter(call -> !call.forwarded()).count();
    }

    /** Drain: answers every call still being admitted or held 503; calls at a carrier go on. */
    public void abortHeld() {
        calls.values().forEach(InviteCall::abortHeld);
    }

    /**
     * Answers every held call with 503 and cancels forwarded ones, for shutdown; calls waiting for a retry after a
     * challenge end as their last answer said.
     */
    public void abortAll() {
        calls.values().forEach(InviteCall::abort);
        challenged.values().forEach(this::challengeOver);
    }
}
