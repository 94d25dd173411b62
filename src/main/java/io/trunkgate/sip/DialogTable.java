package io.trunkgate.sip;

import io.trunkgate.records.CallRecord;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.sip.message.Request;

/**
 * The dialogs this gateway admitted, by Call-ID and the caller's From tag. A dialog is added when its INVITE
 * is first forwarded and dropped when the INVITE fails or a BYE ends it. Without a BYE (lost, or a party that
 * vanished) it times out: when its parties negotiated a session timer (RFC 4028), once the session interval of
 * the last refresh has passed; otherwise when nothing was relayed in it for {@code timeout}; and in any case
 * {@code maxCallLength} after its INVITE when that is set. Bounded: past {@code max} dialogs new calls are shed,
 * so a flood of answered calls cannot grow the table without limit.
 */
public final class DialogTable {

    /**
     * How long past a session interval a dialog is kept for a refresh that comes late: the party that does not
     * refresh hangs up min(32 s, interval / 3) before the interval ends (RFC 4028 §10), so the session is over
     * by then at both ends.
     */
    private static final long MAX_SESSION_GRACE_NANOS = TimeUnit.SECONDS.toNanos(32);
    /**
     * How long an answered dialog lives while no ACK came: the callee retransmits its 2xx for 64*T1 (32 s), then
     * ends the session with a BYE (RFC 3261 §13.3.1.4), which this leaves as long again to pass; a dialog neither
     * party confirmed nor ended by then is dead at both ends, and would otherwise hold its leases for
     * {@code timeout}.
     */
    private static final long NO_ACK_NANOS = TimeUnit.SECONDS.toNanos(64);

    /** A call record's {@code endedBy} and {@code hungUpBy} for a call an operator ended. */
    static final String OPERATOR = "operator";

    private final ConcurrentMap<String, Dialog> dialogs = new ConcurrentHashMap<>();
    private final AtomicInteger live = new AtomicInteger();
    private final long timeoutNanos;
    private final long maxCallLengthNanos;
    private final long endedLingerNanos;
    private final int max;
    private final LongSupplier nanoClock;
    private final Clock wall;
    private final CallEnded ended;

    /** Told of every answered call when its dialog ends: its identity ({@link CallIdentity#key}) and its record. */
    @FunctionalInterface
    public interface CallEnded {
        void ended(String callKey, CallRecord record);
    }

    /**
     * @param maxCallLength {@link Duration#ZERO} for no bound
     * @param endedLinger   how long a dialog a BYE ended still lets a late ACK through (an ACK and a BYE of one
     *                      call can cross on the way; a 2xx retransmitted after the BYE still wants its ACK)
     * @param nanoClock     what dialogs expire by ({@link System#nanoTime})
     * @param wall          when a call ended, for its record
     * @param ended         told of every answered call when its dialog ends
     */
    public DialogTable(Duration timeout, Duration maxCallLength, Duration endedLinger, int max,
            LongSupplier nanoClock, Clock wall, CallEnded ended) {
        this.timeoutNanos = timeout.toNanos();
        this.maxCallLengthNanos = maxCallLength.toNanos();
        this.endedLingerNanos = endedLinger.toNanos();
        this.max = max;
        this.nanoClock = nanoClock;
        this.wall = wall;
        this.ended = ended;
    }

    private static String key(String callId, String callerTag) {
        return callId + '\n' + callerTag;
    }

    /** Records the dialog of an admitted INVITE from {@code source}, about to be forwarded. */
    Dialog open(Request invite, CallIdentity identity, InetAddress source, int sourcePort, String peerId) {
        Dialog dialog = new Dialog(invite, identity, source, sourcePort, peerId, nanoClock.getAsLong());
        extend(dialog, timeoutNanos);
        live.incrementAndGet();
        Dialog replaced = dialogs.put(key(dialog.callId(), dialog.callerTag()), dialog);
        if (replaced != null && replaced.end()) {
            live.decrementAndGet();
        }
        return dialog;
    }

    /**
     * The dialog whose caller's tag is {@code callerTag}, if it is known and has not expired; it may have ended
     * (see {@link Dialog#ended()}), when only an ACK may still pass.
     */
    Optional<Dialog> find(String callId, String callerTag) {
        if (callId == null || callerTag == null) {
            return Optional.empty();
        }
        Dialog dialog = dialogs.get(key(callId, callerTag));
        if (dialog == null || dialog.expiresAtNanos() - nanoClock.getAsLong() < 0) {
            return Optional.empty();
        }
        return Optional.of(dialog);
    }

    /** Whether a dialog with this Call-ID and caller's tag is up (not ended): no INVITE outside it may take its place. */
    boolean live(String callId, String callerTag) {
        return find(callId, callerTag).filter(dialog -> !dialog.ended()).isPresent();
    }

    /** Whether {@code invite} is a copy of a remembered dialog's INVITE: same Call-ID, caller's tag and branch. */
    boolean isCopyOfInvite(Request invite) {
        String branch = SipMessages.topBranch(invite);
        return branch != null && find(SipMessages.callId(invite), SipMessages.fromTag(invite))
                .filter(dialog -> branch.equals(dialog.inviteBranch())).isPresent();
    }

    /**
     * A request was relayed in the dialog: without a session timer, it lives another {@code timeout}. The first ACK
     * confirms the answer: the dialog gets the life its 2xx gave it (see {@link #sessionRefreshed}).
     */
    void touch(Dialog dialog, boolean ack) {
        if (ack && !dialog.acknowledged()) {
            dialog.acknowledge();
            extend(dialog, dialog.lifeNanos() > 0 ? dialog.lifeNanos() : timeoutNanos);
        } else if (!dialog.sessionTimer()) {
            extend(dialog, timeoutNanos);
        }
    }

    /**
     * A 2xx to the INVITE or to a refresh (re-INVITE, UPDATE) was relayed, carrying the session interval the
     * parties agreed on, or none: the dialog lives that interval (and a grace) from now, or, when the timer
     * was not negotiated or was turned off, another {@code timeout}.
     */
    void sessionRefreshed(Dialog dialog, Optional<Duration> sessionInterval) {
        dialog.sessionTimer(sessionInterval.isPresent());
        dialog.lifeNanos(sessionInterval.map(Duration::toNanos)
                .map(interval -> interval + Math.min(MAX_SESSION_GRACE_NANOS, interval / 3)).orElse(timeoutNanos));
        extend(dialog, dialog.acknowledged() ? dialog.lifeNanos() : Math.min(dialog.lifeNanos(), NO_ACK_NANOS));
    }

    private void extend(Dialog dialog, long lifeNanos) {
        long expiry = nanoClock.getAsLong() + lifeNanos;
        if (maxCallLengthNanos > 0) {
            long deadline = dialog.openedAtNanos() + maxCallLengthNanos;
            expiry = expiry - deadline > 0 ? deadline : expiry;
        }
        dialog.expireAt(expiry);
    }

    /**
     * The dialog ended ({@code endedBy}: bye, failed, timeout, session_expired, no_ack, max_call_length, shutdown,
     * warm_up_over; operator: {@link #hungUp}): its call record is written, and after a BYE it lingers a while for a
     * late ACK; nothing else is relayed in it.
     */
    void remove(Dialog dialog, String endedBy) {
        remove(dialog, endedBy, "gateway", null);
    }

    /** A BYE ended the dialog: its sender (the caller, by its From tag, or the callee) hung up, for its Reason. */
    void byeAnswered(Dialog dialog, Request bye) {
        remove(dialog, "bye", dialog.callerTag().equals(SipMessages.fromTag(bye)) ? "caller" : "callee",
                RecordFields.reason(bye));
    }

    /** An operator ended the dialog (the BYEs to its ends are sent): it lingers as after a BYE, for a late ACK. */
    void hungUp(Dialog dialog) {
        remove(dialog, OPERATOR, OPERATOR, null);
    }

    private void remove(Dialog dialog, String endedBy, String hungUpBy, String hangupReason) {
        if (dialog.end()) {
            live.decrementAndGet();
            dialog.takeAnsweredCall().ifPresent(call -> ended.ended(dialog.callKey(),
                    call.ended(wall.instant(), endedBy, hungUpBy, hangupReason)));
        }
        if ("bye".equals(endedBy) || OPERATOR.equals(endedBy)) {
            dialog.expireAt(nanoClock.getAsLong() + endedLingerNanos);
        } else {
            dialogs.remove(key(dialog.callId(), dialog.callerTag()), dialog);
        }
    }

    /** Shutdown: every dialog still up ends here (its call record says so). */
    public void endAll(String endedBy) {
        dialogs.values().forEach(dialog -> remove(dialog, endedBy));
    }

    /** The identities ({@link CallIdentity#key}) of the calls whose dialogs have not ended. */
    public Set<String> liveCallKeys() {
        return dialogs.values().stream().filter(dialog -> !dialog.ended()).map(Dialog::callKey)
                .collect(Collectors.toSet());
    }

    /** The dialogs that have not expired (ended ones lingering among them), for an operator's list. */
    List<Dialog> unexpired() {
        long now = nanoClock.getAsLong();
        return dialogs.values().stream().filter(dialog -> dialog.expiresAtNanos() - now >= 0).toList();
    }

    /** Whether the table is full: new calls are refused until dialogs end. */
    boolean full() {
        return live.get() >= max;
    }

    /** Dialogs known now (including expired ones not yet swept). */
    public int size() {
        return dialogs.size();
    }

    /** Dialogs not ended yet: calls ringing at a carrier or established. */
    public int live() {
        return live.get();
    }

    /** Drops the dialogs that expired; run periodically. */
    public void sweep() {
        long now = nanoClock.getAsLong();
        dialogs.values().stream().filter(dialog -> dialog.expiresAtNanos() - now < 0).toList()
                .forEach(dialog -> remove(dialog, expiryReason(dialog, now)));
    }

    /** Why an expired dialog ended, as its call record's {@code endedBy} says. */
    private String expiryReason(Dialog dialog, long now) {
        if (maxCallLengthNanos > 0 && now - (dialog.openedAtNanos() + maxCallLengthNanos) >= 0) {
            return "max_call_length";
        }
        if (!dialog.acknowledged() && dialog.lifeNanos() > 0) {
            return "no_ack";
        }
        return dialog.sessionTimer() ? "session_expired" : "timeout";
    }
}
