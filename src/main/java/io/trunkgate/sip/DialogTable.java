package io.trunkgate.sip;

import io.trunkgate.records.CallRecord;
import java.net.InetAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import javax.sip.message.Request;

/**
 * The dialogs this gateway admitted, by Call-ID and the caller's From tag. A dialog is added when its INVITE
 * is first forwarded, dropped when the INVITE fails, when a BYE ends it, or when nothing was relayed in it
 * for {@code timeout} (a lost BYE); each relayed request extends it. Bounded: past {@code max} dialogs new
 * calls are shed, so a flood of answered calls cannot grow the table without limit.
 */
public final class DialogTable {

    /**
     * How long a dialog a BYE ended still lets its ACK through: the caller's ACK and BYE can be handled by two
     * worker threads in either order, and a 2xx retransmission needs its ACK (64 x T1, RFC 3261 Timer J).
     */
    private static final long ENDED_LINGER_NANOS = TimeUnit.SECONDS.toNanos(32);

    private final ConcurrentMap<String, Dialog> dialogs = new ConcurrentHashMap<>();
    private final AtomicInteger live = new AtomicInteger();
    private final long timeoutNanos;
    private final int max;
    private final LongSupplier nanoClock;
    private final Consumer<CallRecord> records;

    /** @param records told of every answered call when its dialog ends */
    public DialogTable(Duration timeout, int max, LongSupplier nanoClock, Consumer<CallRecord> records) {
        this.timeoutNanos = timeout.toNanos();
        this.max = max;
        this.nanoClock = nanoClock;
        this.records = records;
    }

    private static String key(String callId, String callerTag) {
        return callId + '\n' + callerTag;
    }

    /** Records the dialog of an admitted INVITE from {@code source}, about to be forwarded. */
    Dialog open(Request invite, InetAddress source, int sourcePort, String peerId) {
        Dialog dialog = new Dialog(invite, source, sourcePort, peerId, nanoClock.getAsLong() + timeoutNanos);
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

    /** Something was relayed in the dialog: it lives another {@code timeout}. */
    void touch(Dialog dialog) {
        dialog.expireAt(nanoClock.getAsLong() + timeoutNanos);
    }

    /**
     * The dialog ended ({@code endedBy}: bye, failed, timeout, shutdown): its call record is written, and after
     * a BYE it lingers a while for a late ACK; nothing else is relayed in it.
     */
    void remove(Dialog dialog, String endedBy) {
        if (dialog.end()) {
            live.decrementAndGet();
            dialog.answeredCall().ifPresent(call -> records.accept(call.ended(Instant.now(), endedBy)));
        }
        if ("bye".equals(endedBy)) {
            dialog.expireAt(nanoClock.getAsLong() + ENDED_LINGER_NANOS);
        } else {
            dialogs.remove(key(dialog.callId(), dialog.callerTag()), dialog);
        }
    }

    /** Shutdown: every dialog still up ends here (its call record says so). */
    public void endAll(String endedBy) {
        dialogs.values().forEach(dialog -> remove(dialog, endedBy));
    }

    /** The Call-IDs of the dialogs not ended. */
    public Set<String> liveCallIds() {
        return dialogs.values().stream().filter(dialog -> !dialog.ended()).map(Dialog::callId)
                .collect(Collectors.toSet());
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
                .forEach(dialog -> remove(dialog, "timeout"));
    }
}
