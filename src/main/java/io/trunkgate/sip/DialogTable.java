package io.trunkgate.sip;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import javax.sip.message.Request;

/**
 * The dialogs this gateway admitted, by Call-ID and the caller's From tag. A dialog is added when its INVITE
 * is first forwarded, dropped when the INVITE fails, when a BYE ends it, or when nothing was relayed in it
 * for {@code timeout} (a lost BYE); each relayed request extends it. Bounded: past {@code max} dialogs new
 * calls are shed, so a flood of answered calls cannot grow the table without limit.
 */
public final class DialogTable {

    private final ConcurrentMap<String, Dialog> dialogs = new ConcurrentHashMap<>();
    private final long timeoutNanos;
    private final int max;
    private final LongSupplier nanoClock;

    public DialogTable(Duration timeout, int max, LongSupplier nanoClock) {
        this.timeoutNanos = timeout.toNanos();
        this.max = max;
        this.nanoClock = nanoClock;
    }

    private static String key(String callId, String callerTag) {
        return callId + '\n' + callerTag;
    }

    /** Records the dialog of an admitted INVITE from {@code source}, about to be forwarded. */
    Dialog open(Request invite, InetAddress source, int sourcePort, String peerId) {
        Dialog dialog = new Dialog(invite, source, sourcePort, peerId, nanoClock.getAsLong() + timeoutNanos);
        dialogs.put(key(dialog.callId(), dialog.callerTag()), dialog);
        return dialog;
    }

    /** The dialog whose caller's tag is {@code callerTag}, if it is known and has not expired. */
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

    void remove(Dialog dialog) {
        dialogs.remove(key(dialog.callId(), dialog.callerTag()), dialog);
    }

    /** Whether the table is full: new calls are refused until dialogs end. */
    boolean full() {
        return dialogs.size() >= max;
    }

    /** Dialogs known now (including expired ones not yet swept). */
    public int size() {
        return dialogs.size();
    }

    /** Drops the dialogs that expired; run periodically. */
    public void sweep() {
        long now = nanoClock.getAsLong();
        dialogs.values().removeIf(dialog -> dialog.expiresAtNanos() - now < 0);
    }
}
