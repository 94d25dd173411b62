package io.trunkgate.sip.transport;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.trunkgate.config.SipListener;
import io.trunkgate.config.SipSettings;
import io.trunkgate.config.Transport;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.sip.wire.NewCallTriage;
import io.trunkgate.tls.TlsEngines;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Every SIP socket of the gateway, on one Netty event loop group ("sip-loop": epoll where the native transport
 * loads, NIO elsewhere; one thread per core, two at least). Made by {@link #create} (the loops run, nothing is
 * bound: the rest of the gateway can be built on the loops), listening from {@link #listen}, closed by
 * {@link #close}.
 *
 * <p>Listeners, from {@link SipSettings#listeners()}: UDP as one socket per loop bound to the same address with
 * SO_REUSEPORT under epoll (the kernel spreads datagrams over them by source), one socket under NIO; TCP and TLS
 * as one server socket each, their connections spread over the loops. The limits are {@link SipSettings#limits()}'s
 * message size and {@link SipSettings#tcp()}'s connection caps and timeouts (for TLS too, with
 * {@link SipSettings#tls()}'s handshake timeout).
 *
 * <p>Overload: each UDP socket is probed for the datagrams waiting unread in it through the
 * {@link OverloadController} given at creation (its {@link OverloadController#probeSockets()} tick sends the
 * probes), and each message's wait for its call's loop is reported to it ({@link OverloadController#messageWaited}).
 */
public final class SipTransports implements AutoCloseable {

    private SipTransports() {
    }

    /**
     * Starts the event loops; nothing is bound until {@link #listen}.
     *
     * @param sip      the listeners and their limits
     * @param overload told how long received messages wait, in the UDP sockets and for their call's loop
     * @param tls      where TLS connections get their engines; required when a listener is TLS, and for sending to
     *                 carriers over TLS
     */
    public static SipTransports create(SipSettings sip, OverloadController overload, Optional<TlsEngines> tls) {
        throw new UnsupportedOperationException("SipTransports is being built on branch issue-48net");
    }

    /** The loops every SIP socket and call runs on (Redis clients and timers may run on them too). */
    public EventLoopGroup loops() {
        throw new UnsupportedOperationException();
    }

    /**
     * The loop every message of the call {@code callId} is handled on: the same loop for the same Call-ID as long
     * as these transports run. The transaction layer's and the call's timers run on its scheduler.
     */
    public EventLoop loopFor(String callId) {
        throw new UnsupportedOperationException();
    }

    /** Where new INVITEs are shed before anything else reads them ({@link NewCallTriage#deliverTo}). */
    public NewCallTriage newCalls() {
        throw new UnsupportedOperationException();
    }

    /**
     * Binds every listener and delivers what they receive to {@code inbound} from now on.
     *
     * @throws IOException a listener cannot be bound; those bound before it are closed again
     */
    public void listen(Inbound inbound) throws IOException {
        throw new UnsupportedOperationException();
    }

    /** The address {@code listener} is bound to (its port when it asked for port 0), once listening. */
    public Optional<InetSocketAddress> localAddress(SipListener listener) {
        throw new UnsupportedOperationException();
    }

    /**
     * Sends {@code message} (a whole SIP message) to {@code to}. The stage completes once the bytes are written to
     * the socket, and fails at once if they cannot be: no UDP listener of the address's family, a connect refused
     * or timed out, a TLS handshake that failed, a connection that closed before the bytes went out. TCP and TLS
     * connections are opened on demand and reused. Callable from any thread; messages sent on one thread to one
     * destination leave in that order.
     */
    public CompletionStage<Void> send(Destination to, byte[] message) {
        throw new UnsupportedOperationException();
    }

    /** Whether {@code flow} can still be sent on: its connection is open (for UDP, its listener socket). */
    public boolean isOpen(Flow flow) {
        throw new UnsupportedOperationException();
    }

    /**
     * Whether a {@code transport} (TCP or TLS) connection from {@code remote} is open, as a dialog knows its caller's
     * connection by the caller's end: a request towards the caller goes back on it while it is.
     */
    public boolean isOpen(Transport transport, InetSocketAddress remote) {
        throw new UnsupportedOperationException();
    }

    /** Closes every socket and stops the loops; returns once they have stopped. */
    @Override
    public void close() {
        throw new UnsupportedOperationException();
    }
}
