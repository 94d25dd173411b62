package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipSettings;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.sip.wire.NewCallTriage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sip.ListeningPoint;
import javax.sip.SipFactory;
import javax.sip.SipProvider;
import javax.sip.SipStack;

/**
 * Builds the JAIN-SIP stack the way a proxy needs it: no automatic dialogs, a worker pool with a
 * re-entrant listener, large UDP buffers, the transports of {@link TransportProperties}, and logging through
 * SLF4J. It first checks that the JAIN-SIP on the class path is the one this package's workarounds target
 * ({@link JainSipSelfCheck}).
 */
public final class SipStackFactory {

    /** How often a stopping stack is looked at (see {@link #stop(SipStack)}). */
    private static final long STOP_CHECK_MS = 5;

    private SipStackFactory() {
    }

    /**
     * The stack, one provider per listening host:port (each with its UDP and/or TCP points), where new calls are
     * shed before they are parsed, and where responses no transaction knows are handed over.
     */
    public record Stack(SipStack stack, List<SipProvider> providers, NewCallTriage newCalls,
                        StrayResponseValve strayResponses) {

        /** Server and client transactions the stack remembers, lingering ones included. */
        public int transactions() {
            SIPTransactionStack transactions = (SIPTransactionStack) stack;
            return transactions.getServerTransactionTableSize() + transactions.getClientTransactionTableSize();
        }

        /** Stops the stack: see {@link SipStackFactory#stop(SipStack)}. */
        public void stop() {
            SipStackFactory.stop(stack);
        }
    }

    /**
     * Stops {@code stack} as {@link SipStack#stop()} does, without the one second JAIN-SIP's
     * {@code SIPTransactionStack.stopStack} sleeps: its sockets are closed and its timer stopped before that sleep,
     * and only its tables are cleared after it. The stop runs on a thread of its own, which is interrupted while
     * it is in that sleep (JAIN-SIP catches the interrupt and goes on); should another JAIN-SIP version not sleep
     * there, the stop is as before. Returns once the stack has stopped.
     */
    public static void stop(SipStack stack) {
        Thread stopping = new Thread(stack::stop, "sip-stack-stop");
        stopping.start();
        try {
            while (stopping.isAlive()) {
                if (inStopStackSleep(stopping)) {
                    stopping.interrupt();
                }
                stopping.join(STOP_CHECK_MS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether {@code thread} is in a {@code Thread.sleep} called by {@code SIPTransactionStack.stopStack}. */
    private static boolean inStopStackSleep(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (!frame.getClassName().equals(Thread.class.getName())) {
                return frame.getClassName().equals(SIPTransactionStack.class.getName())
                        && frame.getMethodName().equals("stopStack") && thread.getState() == Thread.State.TIMED_WAITING;
            }
        }
        return false;
    }

    /**
     * A stack without TLS listeners, capturing nothing: see
     * {@link #create(String, SipSettings, OverloadController, TlsEngines, Capture)}.
     */
    public static Stack create(String name, SipSettings sip, OverloadController overload) throws Exception {
        return create(name, sip, overload, null, Capture.NONE);
    }

    /**
     * {@code overload} is fed by the stack's UDP listeners: how long datagrams wait, and how busy each loop is;
     * {@code tls} makes the engines of the TLS listeners' connections (null when there are none); {@code capture}
     * is told of each message the listeners receive and send.
     */
    public static Stack create(String name, SipSettings sip, OverloadController overload, TlsEngines tls,
                               Capture capture) throws Exception {
        JainSipSelfCheck.verify();
        return TransportProperties.creating(name, overload, tls, capture, () -> createStack(name, sip));
    }

    private static Stack createStack(String name, SipSettings sip) throws Exception {
        SipFactory factory = JainSip.factory();
        Properties properties = new Properties();
        properties.setProperty("javax.sip.STACK_NAME", name);
        properties.setProperty("javax.sip.AUTOMATIC_DIALOG_SUPPORT", "off");
        properties.setProperty("gov.nist.javax.sip.THREAD_POOL_SIZE", Integer.toString(sip.workerThreads()));
        properties.setProperty("gov.nist.javax.sip.REENTRANT_LISTENER", "true");
        properties.setProperty("gov.nist.javax.sip.RECEIVE_UDP_BUFFER_SIZE", Integer.toString(4 << 20));
        properties.setProperty("gov.nist.javax.sip.SEND_UDP_BUFFER_SIZE", Integer.toString(4 << 20));
        properties.setProperty("gov.nist.javax.sip.MAX_MESSAGE_SIZE", Integer.toString(64 << 10));
        // JAIN-SIP's NIO TCP with connection caps, idle and message timeouts, a framer that reads compact and
        // spaced header names; UDP datagrams handed to the workers by Call-ID and dropped when stale; and, for
        // TCP and UDP, plain rate-capped 400s to what cannot be parsed.
        TransportProperties.configure(properties, sip.tcp(), sip.queueTimeout());
        properties.setProperty("gov.nist.javax.sip.CACHE_CLIENT_CONNECTIONS", "true");
        // TCP connects must not block the sending thread: calls are forwarded from the pacer's timer thread and
        // from RedisBreaker's small results pool.
        properties.setProperty("gov.nist.javax.sip.NIO_BLOCKING_MODE", "NONBLOCKING");
        // A finished transaction lingers to absorb retransmissions (sip.transaction-linger, see CoarseSipTimer);
        // without this it keeps the parsed messages too, live heap that grows with the call rate and that every
        // young GC copies. "Aggressive" rather than "Normal": Normal keeps each released message as bytes (one
        // encode per request and per last response) and parses the request again when the transaction is
        // removed, only to drop it: CPU spent on every call for nothing.
        properties.setProperty("gov.nist.javax.sip.RELEASE_REFERENCES_STRATEGY", "Aggressive");
        properties.setProperty("gov.nist.javax.sip.TIMER_CLASS_NAME", CoarseSipTimer.class.getName());
        properties.setProperty(CoarseSipTimer.LINGER_PROPERTY, Long.toString(sip.limits().linger().toMillis()));
        properties.setProperty("gov.nist.javax.sip.STACK_LOGGER", Slf4jStackLogger.class.getName());
        properties.setProperty("gov.nist.javax.sip.SERVER_LOGGER", Slf4jServerLogger.class.getName());
        properties.setProperty("gov.nist.javax.sip.TRACE_LEVEL", "0");
        properties.setProperty("gov.nist.javax.sip.LOG_MESSAGE_CONTENT", "false");
        // SipFactory keeps every stack it made by name and hands it back, stopped or not, for that name, with the
        // settings it was made with: a gateway started again in the same JVM got its predecessor's stack, workers,
        // timers and all. Forgetting them makes this a new stack; the gateway holds its own reference.
        factory.resetFactory();
        SipStack stack = factory.createSipStack(properties);
        StrayResponseValve strays = StrayResponseValve.install(stack);

        Map<String, SipProvider> byAddress = new LinkedHashMap<>();
        try {
            for (SipListener listener : sip.listeners()) {
                ListeningPoint point = stack.createListeningPoint(listener.host(), listener.port(),
                        listener.transport().name());
                String address = listener.host() + ":" + listener.port();
                SipProvider provider = byAddress.get(address);
                if (provider == null) {
                    byAddress.put(address, stack.createSipProvider(point));
                } else {
                    provider.addListeningPoint(point);
                }
            }
        } catch (Exception e) {
            // the listeners made before this one are bound: a failed start must leave their ports free
            stack.stop();
            throw e;
        }
        ListenerFactory transports = (ListenerFactory) ((SIPTransactionStack) stack)
                .getMessageProcessorFactory();
        return new Stack(stack, List.copyOf(byAddress.values()), transports.newCalls(), strays);
    }
}
