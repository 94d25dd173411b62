package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.timers.SipTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.event.Level;

/**
 * JAIN-SIP's timer (property {@code gov.nist.javax.sip.TIMER_CLASS_NAME}) on a wheel that ticks every
 * {@link #TICK}. Every transaction runs a 500 ms timer until it ends (a BYE's server transaction over UDP seconds
 * later), and on JAIN-SIP's default, a {@link java.util.Timer}, each of them wakes the timer thread on its own:
 * several wake-ups per call, each dear on a virtual machine. On the wheel the timers due
 * in one tick run in one wake-up; a timer runs up to one tick late, against RFC 3261 timers of 500 ms and more.
 * The wheel ticks while the stack runs, busy or idle.
 *
 * <p>It also bounds how long a finished transaction stays. A non-INVITE server transaction waits out RFC 3261's
 * Timer J (32 s over UDP) to answer copies of its request; this is cut to {@link #LINGER_PROPERTY}
 * ({@code sip.transaction-linger}, 5 s by default, as Kamailio's {@code wt_timer}): a copy comes only when every
 * response sent within that time was lost. And JAIN-SIP keeps every terminated transaction 8 s more in its
 * table (its {@code LingerTimer}), an INVITE's after its 2xx with the whole parsed INVITE; here that is 1 s:
 * the gateway does not need it (the ACK of a 2xx and the carrier's retransmitted 2xx are relayed in the dialog,
 * a copy of an answered INVITE is dropped by the proxy). What finished calls leave behind is most of the
 * gateway's live heap under load, so these bounds set its size.
 */
public final class CoarseSipTimer implements SipTimer {

    /** The stack property with the longest linger of a finished transaction, in milliseconds. */
    public static final String LINGER_PROPERTY = "io.trunkgate.sip.TRANSACTION_LINGER_MS";
    static final Duration TICK = Duration.ofMillis(20);
    private static final int TICKS_PER_WHEEL = 512;
    private static final long TERMINATED_LINGER_MS = 1000;
    /** JAIN-SIP's task that removes a terminated transaction from the stack's tables. */
    static final String LINGER_TIMER = "gov.nist.javax.sip.stack.SIPTransactionImpl$LingerTimer";
    /** Timer J: the server transaction's only anonymous task. */
    static final String TIMER_J = "gov.nist.javax.sip.stack.SIPServerTransactionImpl$1";
    /** The task classes recognised here by name; {@link JainSipSelfCheck} checks that each exists. */
    static final List<String> RECOGNISED_TASKS = List.of(LINGER_TIMER, TIMER_J);
    /** What each of JAIN-SIP's one-shot tasks is, by class: asked for every transaction. */
    private static final ClassValue<TaskKind> KINDS = new ClassValue<>() {
        @Override
        protected TaskKind computeValue(Class<?> type) {
            return switch (type.getName()) {
                case LINGER_TIMER -> TaskKind.TERMINATED_LINGER;
                case TIMER_J -> TaskKind.TIMER_J;
                default -> TaskKind.OTHER;
            };
        }
    };

    /** The one-shot tasks whose delay only keeps a finished transaction, and all others. */
    private enum TaskKind { TERMINATED_LINGER, TIMER_J, OTHER }

    private volatile long lingerMs = 32_000;
    private volatile HashedWheelTimer wheel;
    private volatile boolean stopped;

    /** Made by JAIN-SIP from the property, then started. */
    public CoarseSipTimer() {
    }

    @Override
    public void start(SipStackImpl stack, Properties properties) {
        if (properties != null && properties.getProperty(LINGER_PROPERTY) != null) {
            lingerMs = Long.parseLong(properties.getProperty(LINGER_PROPERTY));
        }
        HashedWheelTimer started = new HashedWheelTimer(new DefaultThreadFactory("sip-stack-timer", true),
                TICK.toMillis(), TimeUnit.MILLISECONDS, TICKS_PER_WHEEL);
        started.start();
        wheel = started;
    }

    @Override
    public void stop() {
        stopped = true;
        HashedWheelTimer running = wheel;
        if (running != null) {
            running.stop();
        }
    }

    @Override
    public boolean isStarted() {
        return wheel != null && !stopped;
    }

    @Override
    public boolean schedule(SIPStackTimerTask task, long delayMs) {
        new Scheduled(task, 0).arm(lingerBound(task, delayMs));
        return true;
    }

    /** The delay of a one-shot task, shortened if it only keeps a finished transaction (see above). */
    private long lingerBound(SIPStackTimerTask task, long delayMs) {
        return switch (KINDS.get(task.getClass())) {
            case TERMINATED_LINGER -> Math.min(delayMs, TERMINATED_LINGER_MS);
            case TIMER_J -> Math.min(delayMs, lingerMs);
            case OTHER -> delayMs;
        };
    }

    @Override
    public boolean scheduleWithFixedDelay(SIPStackTimerTask task, long delayMs, long periodMs) {
        new Scheduled(task, periodMs).arm(delayMs);
        return true;
    }

    @Override
    public boolean cancel(SIPStackTimerTask task) {
        return task.getSipTimerTask() instanceof Scheduled scheduled && scheduled.cancel();
    }

    /** One task of the stack's on the wheel; a periodic one is put back on it after each run. */
    private final class Scheduled implements TimerTask {
        private final SIPStackTimerTask task;
        private final long periodMs;
        private volatile boolean cancelled;
        private volatile Timeout timeout;

        Scheduled(SIPStackTimerTask task, long periodMs) {
            this.task = task;
            this.periodMs = periodMs;
            task.setSipTimerTask(this);
        }

        void arm(long delayMs) {
            timeout = wheel.newTimeout(this, Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        }

        @Override
        public void run(Timeout fired) {
            if (cancelled) {
                return;
            }
            try {
                task.runTask();
            } catch (RuntimeException | Error e) {
                TransportProperties.LOG.log(Level.WARN, "SIP stack timer task " + task.getClass().getName()
                        + " failed: " + e);
            }
            if (periodMs > 0 && !cancelled && !stopped) {
                arm(periodMs);
            }
        }

        boolean cancel() {
            if (cancelled) {
                return false;
            }
            cancelled = true;
            task.cleanUpBeforeCancel();
            Timeout armed = timeout;
            if (armed != null) {
                armed.cancel();
            }
            return true;
        }
    }
}
