package io.trunkgate.sip.transaction.internal;

import io.trunkgate.sip.transaction.Peer;
import io.trunkgate.sip.transaction.Scheduler;
import io.trunkgate.sip.transaction.TransactionState;
import java.util.concurrent.CompletionStage;
import javax.sip.message.Message;
import javax.sip.message.Request;
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
    private final String method;
    /** The request, let go once the transaction only absorbs copies ({@link #letGoOfRequest}). */
    private Request request;
    private Scheduler.Timer armed;
    private long armedFor = NONE;

    Transaction(LoopTable table, Request request, TransactionState initial) {
        this.method = request.getMethod();
        this.request = request;
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

    /** The request; {@link ClientSide#release} and {@link ServerSide#release} say when it is let go. */
    public final Request request() {
        if (request == null) {
            throw new IllegalStateException("the request of " + this + " was let go");
        }
        return request;
    }

    public final String method() {
        return method;
    }

    /**
     * Lets go of the request once the transaction only absorbs copies: what a finished transaction held would
     * otherwise live on while it lingers, to be copied by every young collection meanwhile.
     */
    final void letGoOfRequest() {
        request = null;
    }

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
