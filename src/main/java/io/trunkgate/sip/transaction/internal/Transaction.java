package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.Scheduler;
import io.trunkgate.sip.transaction.TransactionState;
import java.util.concurrent.CompletionStage;
import javax.sip.message.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every transaction has: its loop, its state, and its one scheduled task, armed for the earliest of its
 * deadlines. A deadline moved later leaves the task where it is (it runs early, finds nothing due and is armed
 * again); one moved earlier re-arms it. So a transaction never has more than one task pending.
 */
abstract class Transaction {

    static final Logger log = LoggerFactory.getLogger(Transaction.class);
    static final long NONE = Timing.NONE;

    final LoopTable table;
    final Scheduler loop;
    final Timing timing;
    volatile TransactionState state;
    private Scheduler.Timer armed;
    private long armedFor = NONE;

    Transaction(LoopTable table, TransactionState initial) {
        this.table = table;
        this.loop = table.loop;
        this.timing = table.layer.timing;
        this.state = initial;
    }

    /** The earliest deadline, or {@link #NONE}. */
    abstract long nextDeadline();

    /** Acts on the deadlines that are due at {@code now}. */
    abstract void deadlines(long now);

    /** A message of this transaction could not be sent. */
    abstract void sendFailed(Throwable cause);

    /** Takes the transaction out of its table; whether it was there. */
    abstract boolean forget();

    final long now() {
        return loop.nanoTime();
    }

    final boolean over() {
        return state == TransactionState.TERMINATED;
    }

    /**
     * When the next copy goes, {@code interval} after the one due at {@code due}: on the RFC's schedule however late
     * the loop ran this one, unless it ran so late that the next is due already (then {@code interval} from now, no
     * burst of copies).
     */
    static long nextRetransmission(long due, long interval, long now) {
        long next = due + interval;
        return next > now ? next : now + interval;
    }

    /** Arms the task for the earliest deadline (see the class comment). */
    final void rearm() {
        long next = over() ? NONE : nextDeadline();
        if (next == NONE) {
            disarm();
            return;
        }
        if (armed != null && armedFor <= next) {
            return;
        }
        disarm();
        armedFor = next;
        armed = loop.schedule(this::fire, Math.max(0, next - now()));
    }

    private void disarm() {
        if (armed != null) {
            armed.cancel();
            armed = null;
            armedFor = NONE;
        }
    }

    private void fire() {
        armed = null;
        armedFor = NONE;
        if (over()) {
            return;
        }
        deadlines(now());
        rearm();
    }

    /** Over: out of the table, its task cancelled. */
    final void terminate() {
        if (over()) {
            return;
        }
        state = TransactionState.TERMINATED;
        disarm();
        if (forget()) {
            table.layer.removed();
        }
    }

    /** Sends {@code message} to {@code to}; a failure comes back later, on the loop, to {@link #sendFailed}. */
    final void send(Message message, Peer to) {
        CompletionStage<Void> sent;
        try {
            sent = table.layer.wire.send(message, to);
        } catch (RuntimeException e) {
            loop.execute(() -> sendFailed(e));
            return;
        }
        sent.whenComplete((done, failure) -> {
            if (failure != null) {
                loop.execute(() -> sendFailed(failure));
            }
        });
    }

    /** Runs a listener's callback; what it throws is logged, and the transaction goes on. */
    static void notify(String what, Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("transaction listener failed on {}", what, e);
        }
    }
}
