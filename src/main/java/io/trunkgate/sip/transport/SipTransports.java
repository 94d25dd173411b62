package io.trunkgate.sip.transport;

import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.sip.transport.internal.CallLoopDispatch;
import io.trunkgate.sip.transport.internal.CallLoops;
import io.trunkgate.sip.transport.internal.CaptureHandler;
import io.trunkgate.sip.transport.internal.ChannelFlow;
import io.trunkgate.sip.transport.internal.DatagramFlow;
import io.trunkgate.sip.transport.internal.LoopBusySampler;
import io.trunkgate.sip.transport.internal.NewCallShedder;
import io.trunkgate.sip.transport.internal.ReadFailures;
import io.trunkgate.sip.transport.internal.Sockets;
import io.trunkgate.sip.transport.internal.StreamTransport;
import io.trunkgate.sip.transport.internal.UdpListener;
import io.trunkgate.sip.wire.NewCallTriage;
import io.trunkgate.tls.TlsEngines;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Every SIP socket of the gateway, on one Netty event loop group ("sip-loop": epoll where the native transport
 * loads, NIO elsewhere; two threads per core). Made by {@link #create} (the loops run, nothing is
 * bound: the rest of the gateway can be built on the loops), listening from {@link #listen}, closed by
 * {@link #close}.
 *
 * <p>Listeners, from {@link SipSettings#listeners()}: UDP as one socket per loop bound to the same address with
 * SO_REUSEPORT under epoll (the kernel spreads datagrams over them by source), one socket under NIO; TCP and TLS
 * as one server socket each, their connections spread over the loops. The limits are {@link SipSettings#tcp()}'s
 * connection caps and timeouts (for TLS too, with {@link SipSettings#tls()}'s handshake timeout); a TCP or TLS
 * stream frames messages of up to {@value #MAX_STREAM_MESSAGE} bytes (or {@link SipSettings#limits()}'s
 * message size if larger), so that a larger request than the limit still reaches the proxy to be answered 513.
 *
 * <p>Overload: each UDP socket is probed for the datagrams waiting unread in it through the
 * {@link OverloadController} given at creation (its {@link OverloadController#probeSockets()} tick sends the
 * probes), each message's wait for its call's loop is reported to it ({@link OverloadController#messageWaited}),
 * and each loop samples how busy it is into it ({@link LoopBusySampler}).
 */
public final class SipTransports implements AutoCloseable {

    /**
     * Two SIP loops per core, as Netty's own default: a loop blocked on its core (a page fault, the kernel's work for
     * a socket) leaves another ready on it, and on a host busy with other work the kernel, which shares a core
     * between threads, gives the gateway the share a proxy that runs several processes per core gets.
     */
    static final int LOOPS = 2 * Runtime.getRuntime().availableProcessors();

    /** What a TCP or TLS stream frames at most (JAIN-SIP's stack took as much). */
    static final int MAX_STREAM_MESSAGE = 64 << 10;

    private final SipSettings sip;
    private final OverloadController overload;
    private final Sockets sockets;
    private final EventLoopGroup group;
    private final CallLoops loops;
    private final LongSupplier nanoClock;
    private final NewCallTriage newCalls = new NewCallTriage();
    private final CallLoopDispatch dispatch;
    private final ReadFailures datagramFailures = new ReadFailures(true);
    private final ReadFailures streamFailures = new ReadFailures(false);
    private final NewCallShedder streamShedder;
    private final CaptureHandler udpCapture;
    private final StreamTransport tcp;
    private final StreamTransport tls;
    private final List<UdpListener> udp = new CopyOnWriteArrayList<>();
    private final Map<SipListener, InetSocketAddress> bound = new ConcurrentHashMap<>();
    private volatile Inbound inbound;
    /*
     * The lock guards these two flags only: binding and closing wait for the loops, and a loop sending ({@link
     * #udpTo}) must never wait for a lock held meanwhile.
     */
    private boolean listening;
    private boolean closed;

    private SipTransports(SipSettings sip, OverloadController overload, Optional<TlsEngines> engines,
                          Capture capture, Sockets sockets, int threads, LongSupplier nanoClock) {
        this.sip = sip;
        this.overload = overload;
        this.sockets = sockets;
        this.nanoClock = nanoClock;
        this.group = sockets.group(threads, "sip-loop");
        this.loops = new CallLoops(group, nanoClock);
        for (int i = 0; i < loops.size(); i++) {
            LoopBusySampler.start(loops.loop(i), overload.loopMeter());
        }
        this.dispatch = new CallLoopDispatch(loops, message -> {
            Inbound to = inbound;
            if (to != null) {
                to.received(message);
            }
        }, overload::messageWaited, nanoClock);
        this.streamShedder = new NewCallShedder(newCalls, this::loopWaitAhead);
        this.udpCapture = new CaptureHandler(capture, Transport.UDP);
        CaptureHandler tcpCapture = new CaptureHandler(capture, Transport.TCP);
        CaptureHandler tlsCapture = new CaptureHandler(capture, Transport.TLS);
        int maxMessage = Math.max(MAX_STREAM_MESSAGE, sip.limits().maxMessageSize());
        this.tcp = new StreamTransport(new StreamTransport.Settings(Transport.TCP, sip.tcp(), maxMessage,
                sip.tls().handshakeTimeout(), null, nanoClock), sockets, group,
                pipeline -> streamRest(pipeline, tcpCapture));
        this.tls = engines.map(e -> new StreamTransport(new StreamTransport.Settings(Transport.TLS, sip.tcp(),
                maxMessage, sip.tls().handshakeTimeout(), e, nanoClock), sockets, group,
                pipeline -> streamRest(pipeline, tlsCapture))).orElse(null);
    }

    /**
     * Starts the event loops; nothing is bound until {@link #listen}.
     *
     * @param sip       the listeners and their limits
     * @param overload  told how long received messages wait, in the UDP sockets and for their call's loop
     * @param tls       where TLS connections get their engines; required when a listener is TLS, and for sending to
     *                  carriers over TLS
     * @param capture   told of each SIP message the sockets read and write
     * @param nanoClock when a message was read and how long it waited, for its call's loop and on a stream's idle and
     *                  incomplete-message timeouts ({@link System#nanoTime}; a test's clock decides those waits)
     * @throws IllegalArgumentException a listener is TLS and {@code tls} is empty
     */
    public static SipTransports create(SipSettings sip, OverloadController overload, Optional<TlsEngines> tls,
                                       Capture capture, LongSupplier nanoClock) {
        return create(sip, overload, tls, capture, Sockets.best(), LOOPS, nanoClock);
    }

    /** As {@link #create(SipSettings, OverloadController, Optional, Capture, LongSupplier)}, on the loops given. */
    static SipTransports create(SipSettings sip, OverloadController overload, Optional<TlsEngines> tls,
                                Capture capture, Sockets sockets, int threads, LongSupplier nanoClock) {
        if (tls.isEmpty() && sip.listeners().stream().anyMatch(l -> l.transport() == Transport.TLS)) {
            throw new IllegalArgumentException("a TLS listener needs the gateway's TLS engines");
        }
        return new SipTransports(sip, overload, tls, capture, sockets, threads, nanoClock);
    }

    /** The loops every SIP socket and call runs on (Redis clients and timers may run on them too). */
    public EventLoopGroup loops() {
        return group;
    }

    /**
     * The loop every message of the call {@code callId} is handled on: the same loop for the same Call-ID as long
     * as these transports run. The transaction layer's and the call's timers run on its scheduler.
     */
    public EventLoop loopFor(String callId) {
        return loops.loopFor(callId);
    }

    /** Where new INVITEs are shed before anything else reads them ({@link NewCallTriage#deliverTo}). */
    public NewCallTriage newCalls() {
        return newCalls;
    }

    /**
     * Binds every listener and delivers what they receive to {@code inbound} from now on.
     *
     * @throws IOException a listener cannot be bound; those bound before it are closed again
     */
    public void listen(Inbound inbound) throws IOException {
        synchronized (this) {
            if (listening || closed) {
                throw new IllegalStateException(closed ? "the SIP transports are closed" : "already listening");
            }
            listening = true;
            this.inbound = inbound;
        }
        try {
            bindAll();
        } catch (IOException | RuntimeException e) {
            closeSockets();
            throw e;
        }
    }

    private void bindAll() throws IOException {
        for (SipListener listener : sip.listeners()) {
            bound.put(listener, bind(listener));
        }
    }

    private InetSocketAddress bind(SipListener listener) throws IOException {
        return switch (listener.transport()) {
            case UDP -> {
                UdpListener socket = UdpListener.bind(listener, sockets, loops, overload, nanoClock,
                        (pipeline, owner, socketWait) -> pipeline.addLast(udpCapture)
                                .addLast(new NewCallShedder(newCalls, message -> Duration.ofNanos(
                                        socketWait.getAsLong()).plus(loopWaitAhead(message))))
                                .addLast(dispatch).addLast(datagramFailures));
                udp.add(socket);
                yield socket.localAddress();
            }
            case TCP -> tcp.listen(listener);
            case TLS -> tls.listen(listener);
        };
    }

    private void streamRest(ChannelPipeline pipeline, CaptureHandler capture) {
        pipeline.addLast(capture).addLast(streamShedder).addLast(dispatch).addLast(streamFailures);
    }

    /** How long what is ahead of {@code message} on its call's loop has waited. */
    private Duration loopWaitAhead(InboundMessage message) {
        return loops.waitAhead(message.head().callId(), message.remote());
    }

    /** The address {@code listener} is bound to (its port when it asked for port 0), once listening. */
    public Optional<InetSocketAddress> localAddress(SipListener listener) {
        return Optional.ofNullable(bound.get(listener));
    }

    /**
     * Sends {@code message} (a whole SIP message) to {@code to}. The stage completes once the bytes are written to
     * the socket, and fails at once if they cannot be: no UDP listener of the address's family, a connect refused
     * or timed out, a TLS handshake that failed, a connection that closed before the bytes went out. TCP and TLS
     * connections are opened on demand and reused. Callable from any thread; messages sent on one thread to one
     * destination leave in that order.
     */
    public CompletionStage<Void> send(Destination to, byte[] message) {
        Optional<Flow> flow = to.flow();
        if (flow.isPresent() && isOpen(flow.get())) {
            if (flow.get() instanceof ChannelFlow connection) {
                return StreamTransport.sendOn(connection, message);
            }
            return ((DatagramFlow) flow.get()).listener().send(to.address(), message);
        }
        return switch (to.transport()) {
            case UDP -> {
                UdpListener from = udpTo(to.address());
                yield from == null ? CompletableFuture.failedFuture(new IOException("no UDP listener sends to "
                        + to.address())) : from.send(to.address(), message);
            }
            case TCP -> tcp.send(to.address(), message);
            case TLS -> tls == null ? CompletableFuture.failedFuture(new IOException("no TLS: the gateway has no "
                    + "TLS engines")) : tls.send(to.address(), message);
        };
    }

    /** The UDP listener to send to {@code address} from: one of its family, else an IPv6 wildcard (dual stack). */
    private UdpListener udpTo(InetSocketAddress address) {
        for (boolean sameFamily : new boolean[] {true, false}) {
            for (UdpListener listener : udp) {
                if (listener.isOpen() && listener.reaches(address, sameFamily)) {
                    return listener;
                }
            }
        }
        return null;
    }

    /** Whether {@code flow} can still be sent on: its connection is open (for UDP, its listener socket). */
    public boolean isOpen(Flow flow) {
        if (flow instanceof ChannelFlow connection) {
            return connection.channel().isActive();
        }
        return flow instanceof DatagramFlow datagrams && datagrams.listener().isOpen();
    }

    /** The UDP listeners bound. */
    List<UdpListener> udpListeners() {
        return List.copyOf(udp);
    }

    /** TCP and TLS connections open now (or connecting), both ways. */
    int connections() {
        return tcp.connections() + (tls == null ? 0 : tls.connections());
    }

    /**
     * Whether a {@code transport} (TCP or TLS) connection from {@code remote} is open, as a dialog knows its caller's
     * connection by the caller's end: a request towards the caller goes back on it while it is.
     */
    public boolean isOpen(Transport transport, InetSocketAddress remote) {
        return switch (transport) {
            case UDP -> false;
            case TCP -> tcp.isOpen(remote);
            case TLS -> tls != null && tls.isOpen(remote);
        };
    }

    /** Closes every socket and stops the loops; returns once they have stopped. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        closeSockets();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private void closeSockets() {
        List<UdpListener> closing = List.copyOf(udp);
        udp.clear();
        bound.clear();
        closing.forEach(UdpListener::close);
        tcp.close();
        if (tls != null) {
            tls.close();
        }
    }
}
