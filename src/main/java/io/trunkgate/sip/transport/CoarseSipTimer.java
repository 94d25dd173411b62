package io.trunkgate.sip.transport;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.SIPStackTimerTask;
import gov.nist.javax.sip.stack.timers.SipTimer;
import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.slf4j.event.Level;

/**
 * JAIN-SIP's timer (property {@code gov.nist.javax.sip.TIMER_CLASS_NAME}) on a wheel that ticks every
 * {@link #TICK}. Every transaction runs a 500 ms timer until it ends (a BYE's server transaction over UDP 32 s
 * later), and on JAIN-SIP's default, a {@link java.util.Timer}, each of them woke the timer thread on its own: 7
 * wake-ups per call at 100 calls/s, a quarter of all the gateway's (bench/README.md). On the wheel the timers due
 * in one tick run in one wake-up; a timer runs up to one tick late, against RFC 3261 timers of 500 ms and more.
 * The wheel ticks while the stack runs, busy or idle.
 */
public final class CoarseSipTimer implements SipTimer {

    static final Duration TICK = Duration.ofMillis(20);
    private static final int TICKS_PER_WHEEL = 512;

    private volatile HashedWheelTimer wheel;
    private volatile boolean stopped;

    /** Made by JAIN-SIP from the property, then started. */
    public CoarseSipTimer() {
    }

    @Override
    public void start(SipStackImpl stack, Properties properties) {
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
        new Scheduled(task, 0).arm(delayMs);
        return true;
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
                GuardedTransports.LOG.log(Level.WARN, "SIP stack timer task " + task.getClass().getName()
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
