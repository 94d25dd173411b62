package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.ThreadAffinityTask;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.event.Level;

/**
 * Runs the work of one Call-ID one piece at a time, in the order it was handed over, on the stack's workers.
 * JAIN-SIP 1.3.0-91's ThreadAffinityExecutor sends every task of a Call-ID to one thread but does not keep their
 * order: its MDCScheduledTHExecutor wraps each task in a future whose compareTo passes the other wrapper to
 * ScheduledFutureTask.compareTo, which, not seeing one of its own, compares the two remaining delays read at two
 * different instants, with no tie-break on submission order. Tasks submitted back to back run in either order
 * (hundreds of 200,000 on an idle machine): a carrier's 183 ran after its 200 and the client transaction, by then
 * terminated, dropped it. So each Call-ID gets its own queue here and one task at a time drains it.
 */
final class PerCallSequencer {

    private final Executor workers;
    /** The work waiting per Call-ID; a Call-ID is present while a drain task for it is queued or running. */
    private final Map<String, ArrayDeque<Runnable>> waiting = new HashMap<>();

    /** @param workers runs the drain tasks; given a {@link ThreadAffinityTask}, it may keep a Call-ID on one thread */
    PerCallSequencer(Executor workers) {
        this.workers = workers;
    }

    /** Runs {@code work} after all work handed over before for {@code callId} (null: messages without one). */
    void execute(String callId, Runnable work) {
        synchronized (waiting) {
            ArrayDeque<Runnable> queue = waiting.get(callId);
            if (queue != null) {
                queue.add(work);
                return;
            }
            queue = new ArrayDeque<>();
            queue.add(work);
            waiting.put(callId, queue);
        }
        try {
            workers.execute(new ThreadAffinityTask() {
                @Override
                public void run() {
                    drain(callId);
                }

                @Override
                public Object getThreadHash() {
                    return callId;
                }
            });
        } catch (RuntimeException rejected) {
            synchronized (waiting) {
                waiting.remove(callId);
            }
            throw rejected;
        }
    }

    private void drain(String callId) {
        while (true) {
            Runnable next;
            synchronized (waiting) {
                next = waiting.get(callId).poll();
                if (next == null) {
                    waiting.remove(callId);
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                // The rest of the call's messages must still be processed.
                TransportProperties.LOG.log(Level.WARN, "SIP message of Call-ID " + callId + " not processed", e);
            }
        }
    }
}
