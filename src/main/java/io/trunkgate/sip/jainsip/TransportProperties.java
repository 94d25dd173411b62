package io.trunkgate.sip.jainsip;

import io.trunkgate.capture.Capture;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.throttle.ThrottledLog;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.LoggerFactory;

/**
 * Puts this package's transports (listeners, parser, router) into a JAIN-SIP stack's properties, with the TCP
 * limits and the UDP queue timeout they are to keep, and reads them back where JAIN-SIP creates the listeners.
 */
public final class TransportProperties {

    /** What the transports say about connections and messages they refuse: peers decide how much, so throttled. */
    static final ThrottledLog LOG = new ThrottledLog(
            LoggerFactory.getLogger(TransportProperties.class.getPackageName()), 10, Duration.ofSeconds(1));

    private static final String IDLE_TIMEOUT_MS = "io.trunkgate.sip.tcp.IDLE_TIMEOUT_MS";
    private static final String MESSAGE_TIMEOUT_MS = "io.trunkgate.sip.tcp.MESSAGE_TIMEOUT_MS";
    private static final String MAX_CONNECTIONS = "io.trunkgate.sip.tcp.MAX_CONNECTIONS";
    private static final String MAX_CONNECTIONS_PER_SOURCE = "io.trunkgate.sip.tcp.MAX_CONNECTIONS_PER_SOURCE";
    private static final String UDP_QUEUE_TIMEOUT_MS = "io.trunkgate.sip.udp.QUEUE_TIMEOUT_MS";
    private static final String WORKER_THREADS = "gov.nist.javax.sip.THREAD_POOL_SIZE";
    /** What the stacks being created are handed, by stack name (see {@link #creating}). */
    private static final Map<String, HandedOver> HANDED_OVER = new ConcurrentHashMap<>();

    private record HandedOver(OverloadController overload, TlsEngines tls, Capture capture) {
    }

    private TransportProperties() {
    }

    /**
     * @param udpQueueTimeout how long a datagram may wait for a worker before it is dropped unread: its sender has
     *                        retransmitted it by now (T1 = 500 ms), and working through stale copies is how an
     *                        overloaded proxy stays overloaded
     */
    public static void configure(Properties stack, TcpLimits tcp, Duration udpQueueTimeout) {
        if (stack.getProperty(WORKER_THREADS) == null) {
            throw new IllegalArgumentException(WORKER_THREADS + " must be set before the transports are configured");
        }
        stack.setProperty("gov.nist.javax.sip.MESSAGE_PROCESSOR_FACTORY",
                ListenerFactory.class.getName());
        stack.setProperty("gov.nist.javax.sip.MESSAGE_PARSER_FACTORY", AnsweringParserFactory.class.getName());
        stack.setProperty("javax.sip.ROUTER_PATH", FlowRouter.class.getName());
        // TLS is TlsLayer's, with engines from TlsEngines: JAIN-SIP's key stores and TLS policy are not used
        stack.setProperty("gov.nist.javax.sip.SECURITY_MANAGER_PROVIDER", NoKeyStores.class.getName());
        stack.setProperty("gov.nist.javax.sip.TLS_SECURITY_POLICY", "gov.nist.javax.sip.stack.DefaultTlsSecurityPolicy");
        // 0 turns off JAIN-SIP's own idle sweep, which CappedTcpListener's replaces.
        stack.setProperty("gov.nist.javax.sip.NIO_MAX_SOCKET_IDLE_TIME", "0");
        stack.setProperty(IDLE_TIMEOUT_MS, Long.toString(tcp.idleTimeout().toMillis()));
        stack.setProperty(MESSAGE_TIMEOUT_MS, Long.toString(tcp.messageTimeout().toMillis()));
        stack.setProperty(MAX_CONNECTIONS, Integer.toString(tcp.maxConnections()));
        stack.setProperty(MAX_CONNECTIONS_PER_SOURCE, Integer.toString(tcp.maxConnectionsPerSource()));
        // PerCallDatagramQueue drops stale datagrams itself; JAIN-SIP's auditor would watch a queue no longer used.
        stack.setProperty("gov.nist.javax.sip.CONGESTION_CONTROL_TIMEOUT", "0");
        stack.setProperty(UDP_QUEUE_TIMEOUT_MS, Long.toString(udpQueueTimeout.toMillis()));
    }

    /**
     * Runs {@code create}, which creates the stack named {@code stackName} and its listening points, with
     * {@code overload}, {@code tls} (null without TLS listeners) and {@code capture} handed to that stack's listeners. JAIN-SIP
     * creates the {@link ListenerFactory} itself, by reflection and with no argument, so they cannot be passed to
     * it: they are left here under the stack's name for as long as the listeners are being created, and the factory
     * takes them when it creates a UDP or TLS listener. No two stacks of one name may be created at once.
     */
    public static <T> T creating(String stackName, OverloadController overload, TlsEngines tls, Capture capture,
                                 Callable<T> create) throws Exception {
        HandedOver handed = new HandedOver(overload, tls, capture);
        if (HANDED_OVER.putIfAbsent(stackName, handed) != null) {
            throw new IllegalStateException("a SIP stack named " + stackName + " is being created already");
        }
        try {
            return create.call();
        } finally {
            HANDED_OVER.remove(stackName, handed);
        }
    }

    /** The overload controller handed to the stack named {@code stackName} while it is created. */
    static OverloadController overloadOf(String stackName) {
        return handedTo(stackName).overload();
    }

    /** Where the listeners of the stack named {@code stackName} report the messages they receive and send. */
    static Capture captureOf(String stackName) {
        return handedTo(stackName).capture();
    }

    /** The TLS engines handed to the stack named {@code stackName} while it is created. */
    static TlsEngines tlsOf(String stackName) {
        TlsEngines tls = handedTo(stackName).tls();
        if (tls == null) {
            throw new IllegalStateException("SIP stack " + stackName + " has a TLS listener but no certificates");
        }
        return tls;
    }

    private static HandedOver handedTo(String stackName) {
        HandedOver handed = HANDED_OVER.get(stackName);
        if (handed == null) {
            throw new IllegalStateException("SIP stack " + stackName + " created without an overload controller: "
                    + "its listening points must be created within TransportProperties.creating");
        }
        return handed;
    }

    static int workerThreads(Properties stack) {
        return Integer.parseInt(stack.getProperty(WORKER_THREADS));
    }

    static PerCallDatagramQueue udpQueue(Properties stack, OverloadController overload) {
        return new PerCallDatagramQueue(workerThreads(stack), Long.parseLong(stack.getProperty(UDP_QUEUE_TIMEOUT_MS)),
                System::currentTimeMillis, overload::messageWaited);
    }

    static TcpLimits tcpLimits(Properties stack) {
        return new TcpLimits(Duration.ofMillis(Long.parseLong(stack.getProperty(IDLE_TIMEOUT_MS))),
                Duration.ofMillis(Long.parseLong(stack.getProperty(MESSAGE_TIMEOUT_MS))),
                Integer.parseInt(stack.getProperty(MAX_CONNECTIONS)),
                Integer.parseInt(stack.getProperty(MAX_CONNECTIONS_PER_SOURCE)));
    }
}
