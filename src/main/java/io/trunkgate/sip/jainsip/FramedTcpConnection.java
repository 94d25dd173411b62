package io.trunkgate.sip.jainsip;

import java.util.Optional;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.PresentedCertificate;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.message.SIPRequest;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.config.Transport;
import io.trunkgate.sip.wire.SipHead;
import io.trunkgate.sip.wire.SipStreamFramer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import javax.sip.address.Hop;
import javax.sip.message.Request;
import org.slf4j.event.Level;

/**
 * One SIP connection over TCP or TLS, inbound or to a carrier. On a TLS listener its bytes go through a
 * {@link TlsLayer} first, and a TLS connection never goes on over a new socket: JAIN-SIP reconnects a TCP channel
 * whose socket closed, which for TLS would send records of the old session on a new connection. Its bytes are cut into messages by a {@link SipStreamFramer}
 * and parsed by the stack's {@link ReceivedMessageParser} on the stack's workers (in order per Call-ID, kept by a
 * {@link PerCallSequencer}), which replaces JAIN-SIP's NIO framer and, with it, its silence about requests it
 * cannot parse. It remembers when it last received anything and since when a message is incomplete, for
 * {@link CappedTcpListener}'s sweep.
 */
final class FramedTcpConnection extends NioTcpMessageChannel {

    /** Why a connection is to be closed. */
    enum Expiry { NONE, IDLE, MESSAGE_INCOMPLETE, HANDSHAKE_INCOMPLETE }

    private static final long NO_PARTIAL_MESSAGE = Long.MAX_VALUE;
    private static final byte[] KEEP_ALIVE_PONG = "\r\n".getBytes(StandardCharsets.US_ASCII);
    /** The client transaction whose request is being sent on this thread, if any (see {@link TlsLayer#send}). */
    private static final ThreadLocal<String> SENDING_TRANSACTION = new ThreadLocal<>();

    private final CappedTcpListener processor;
    private final SipStreamFramer framer;
    private final PerCallSequencer inCallOrder =
            new PerCallSequencer(task -> sipStack.getSelfRoutingThreadpoolExecutor().execute(task));
    private final InetSocketAddress remote;
    private final boolean inbound;
    private final TlsLayer tls;
    private final long openedNanos = System.nanoTime();
    private final AtomicBoolean socketClosed = new AtomicBoolean();
    private volatile long lastReceivedNanos = System.nanoTime();
    private volatile long partialMessageSinceNanos = NO_PARTIAL_MESSAGE;
    private volatile boolean shuttingDown;
    /** The caller's client certificate on an inbound TLS connection, once its handshake is done. */
    private Optional<PresentedCertificate> callerCertificate;

    /** A connection a peer opened. */
    FramedTcpConnection(CappedTcpListener processor, SocketChannel socket) throws IOException {
        super(processor, socket);
        this.messageProcessor = processor;
        this.processor = processor;
        this.framer = new SipStreamFramer(processor.maxMessageSize());
        this.remote = (InetSocketAddress) socket.getRemoteAddress();
        this.inbound = true;
        this.tls = processor.tls() == null ? null : new TlsLayer(
                processor.tls().accepted(new InetSocketAddress(processor.getIpAddress(), processor.getPort())),
                new Records());
    }

    /** A connection the gateway opens (or reuses) to {@code host:port}. */
    FramedTcpConnection(InetAddress host, int port, SIPTransactionStack stack,
                        CappedTcpListener processor) throws IOException {
        super(host, port, stack, processor);
        this.processor = processor;
        this.framer = new SipStreamFramer(processor.maxMessageSize());
        this.remote = new InetSocketAddress(host, port);
        this.inbound = false;
        this.tls = processor.tls() == null ? null : new TlsLayer(processor.tls().connecting(remote), new Records());
    }

    InetSocketAddress remote() {
        return remote;
    }

    boolean isInbound() {
        return inbound;
    }

    void markCached() {
        isCached = true;
    }

    /** The TLS session once its handshake is done; null on TCP or before. */
    SSLSession tlsSession() {
        return tls == null ? null : tls.session();
    }

    /** TLS or TCP, the listener's: JAIN-SIP's channel names itself TCP whatever its listener. */
    @Override
    public String getTransport() {
        return messageProcessor != null ? messageProcessor.getTransport() : super.getTransport();
    }

    @Override
    public boolean isSecure() {
        return tls != null;
    }

    @Override
    public void sendMessage(SIPMessage message) throws IOException {
        sending(message, () -> super.sendMessage(message));
    }

    @Override
    public void sendMessage(SIPMessage message, Hop hop) throws IOException {
        sending(message, () -> super.sendMessage(message, hop));
    }

    @Override
    public void sendMessage(SIPMessage message, InetAddress address, int port) throws IOException {
        sending(message, () -> super.sendMessage(message, address, port));
    }

    private interface Send {
        void run() throws IOException;
    }

    /** Sends with the client transaction of {@code message} known to the TLS layer while its bytes pass through. */
    private void sending(SIPMessage message, Send send) throws IOException {
        if (tls == null || !(message instanceof SIPRequest request) || Request.ACK.equals(request.getMethod())) {
            send.run();
            return;
        }
        SENDING_TRANSACTION.set(message.getTransactionId());
        try {
            send.run();
        } finally {
            SENDING_TRANSACTION.remove();
        }
    }

    @Override
    protected void sendMessage(byte[] message, boolean isClient) throws IOException {
        if (tls == null) {
            super.sendMessage(message, isClient);
        } else {
            tls.send(message, SENDING_TRANSACTION.get(), records -> super.sendMessage(records, isClient));
        }
        if (message != KEEP_ALIVE_PONG) {
            sent(message, remote);
        }
    }

    @Override
    public void sendMessage(byte[] message, InetAddress address, int port, boolean retry) throws IOException {
        if (tls == null) {
            super.sendMessage(message, address, port, retry);
        } else {
            tls.send(message, SENDING_TRANSACTION.get(), records -> super.sendMessage(records, address, port, retry));
        }
        sent(message, new InetSocketAddress(address, port));
    }

    /** Captures a message sent (over TLS: handed to the TLS layer, which may still wait for the handshake). */
    private void sent(byte[] message, InetSocketAddress to) {
        Capture capture = processor.capture();
        if (capture.on()) {
            capture.message(message, 0, message.length, local(), to, transport(), Capture.nowMicros());
        }
    }

    private void received(byte[] message) {
        Capture capture = processor.capture();
        if (capture.on()) {
            capture.message(message, 0, message.length, remote, local(), transport(), Capture.nowMicros());
        }
    }

    /** This end of the connection; the listener's address while a connection to a carrier is being opened. */
    private InetSocketAddress local() {
        SocketChannel socket = socketChannel;
        try {
            if (socket != null && socket.getLocalAddress() instanceof InetSocketAddress address
                    && address.getPort() != 0) {
                return address;
            }
        } catch (IOException | RuntimeException closed) {
            // as while being opened
        }
        return new InetSocketAddress(processor.getIpAddress(), processor.getPort());
    }

    private Transport transport() {
        return tls == null ? Transport.TCP : Transport.TLS;
    }

    /**
     * One send at a time on a connection. JAIN-SIP 1.3.0-91 goes through NIOHandler.openOutgoingConnection for
     * every send to a carrier (it drops the socket from its table after each connect), and two sends racing there
     * free each other's per-address lock: one of them fails with IllegalMonitorStateException and its request
     * (an ACK or BYE sent right behind another) is never written. The writes themselves only queue bytes for the
     * selector, so taking turns costs next to nothing.
     */
    @Override
    public synchronized void sendTCPMessage(byte[] message, InetAddress receiverAddress, int receiverPort,
                                            boolean retry) throws IOException {
        if (tls != null && !socketChannel.isOpen()) {
            throw new IOException("TLS connection with " + remote + " closed");
        }
        super.sendTCPMessage(message, receiverAddress, receiverPort, retry);
    }

    /** Called by the selector thread with each chunk read from the socket. */
    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        lastReceivedNanos = System.nanoTime();
        if (tls == null) {
            frame(bytes);
            return;
        }
        try {
            tls.received(bytes);
        } catch (SSLException e) {
            handshakeFailed(e);
            throw e;
        }
    }

    /**
     * The connection closes next (JAIN-SIP closes a channel whose read failed). To a carrier: one WARN line, and
     * the requests that waited for the handshake answered 503 "Transport error", as for a connect that failed, so
     * the call moves on to the next carrier at once.
     */
    private void handshakeFailed(SSLException e) {
        // a refused certificate says why in its own words; the TLS exceptions around it only say that it failed
        String reason = e.getMessage();
        for (Throwable cause = e.getCause(); cause != null; cause = cause.getCause()) {
            reason = cause.getMessage() != null ? cause.getMessage() : reason;
            if (cause instanceof CertificateException) {
                break;
            }
        }
        if (inbound) {
            TransportProperties.LOG.log(Level.INFO, "TLS connection from " + remote + " closed: " + reason);
        } else {
            TransportProperties.LOG.log(Level.WARN, "TLS connection to " + remote + " failed: " + reason);
            triggerConnectFailure(tls.unsent());
        }
    }

    private void frame(byte[] bytes) throws IOException {
        long now = System.nanoTime();
        boolean partialBefore = framer.hasPartialMessage();
        int completed;
        try {
            completed = framer.add(bytes, new SipStreamFramer.Receiver() {
                @Override
                public void message(byte[] message, SipHead head) {
                    received(message);
                    dispatch(message, head);
                }

                @Override
                public void keepAlivePing() {
                    pong();
                }
            });
        } catch (SipStreamFramer.FramingException e) {
            refuseStream(e.getMessage());
            throw new IOException("SIP stream from " + remote + " cannot be framed: " + e.getMessage());
        }
        if (!framer.hasPartialMessage()) {
            partialMessageSinceNanos = NO_PARTIAL_MESSAGE;
        } else if (!partialBefore || completed > 0) {
            partialMessageSinceNanos = now;
        }
    }

    /** Why this connection should be closed at {@code now}, if it should and is not being closed already. */
    Expiry expiry(long now, TcpLimits limits) {
        long partialSince = partialMessageSinceNanos;
        if (shuttingDown) {
            return Expiry.NONE;
        }
        if (tls != null && !tls.established() && now - openedNanos > processor.tls().handshakeTimeout().toNanos()) {
            return Expiry.HANDSHAKE_INCOMPLETE;
        }
        if (partialSince != NO_PARTIAL_MESSAGE && now - partialSince > limits.messageTimeout().toNanos()) {
            return Expiry.MESSAGE_INCOMPLETE;
        }
        return now - lastReceivedNanos > limits.idleTimeout().toNanos() ? Expiry.IDLE : Expiry.NONE;
    }

    /**
     * Has the selector thread close the connection: with its input shut down it reads end of stream and closes
     * the channel the way it closes any other, so no other thread touches the stack's (unsynchronized) tables.
     */
    void shutDown() {
        shuttingDown = true;
        try {
            socketChannel.shutdownInput();
        } catch (IOException | RuntimeException notConnected) {
            close();
        }
    }

    /**
     * Closes the socket; {@code removeSocket} false means JAIN-SIP goes on with a new socket to the same peer
     * (it reconnects when a response finds the connection gone), so the channel stays under watch.
     */
    @Override
    protected void close(boolean removeSocket, boolean stopKeepAliveTask) {
        SocketChannel closing = socketChannel;
        boolean finished = removeSocket || tls != null;
        super.close(finished, stopKeepAliveTask);
        processor.closed(this, closing, socketClosed.compareAndSet(false, true), finished);
    }

    /**
     * Answers nothing: JAIN-SIP feeds its own framer a double CRLF at end of stream, which it takes for a
     * keep-alive ping to answer. Pings that really arrive are answered by {@link #pong()}.
     */
    @Override
    public void sendSingleCLRF() {
    }

    private void pong() {
        try {
            sendMessage(KEEP_ALIVE_PONG, false);
        } catch (IOException e) {
            TransportProperties.LOG.log(Level.DEBUG, "keep-alive pong to " + remote + " not sent", e);
        }
    }

    private void dispatch(byte[] message, SipHead head) {
        Optional<PresentedCertificate> certificate = callerCertificate();
        if (processor.newCalls().handled(head, remote, certificate, () -> Duration.ZERO,
                this::answerOnThisConnection)) {
            return;
        }
        inCallOrder.execute(head.callId(), () -> process(message, certificate));
    }

    /** Read on the selector thread only, where messages are framed: after the handshake, as plaintext comes. */
    private Optional<PresentedCertificate> callerCertificate() {
        if (callerCertificate == null) {
            SSLSession session = inbound && tls != null ? tls.session() : null;
            if (session == null) {
                return Optional.empty();
            }
            callerCertificate = processor.tls().callerCertificate(session);
        }
        return callerCertificate;
    }

    private void process(byte[] bytes, Optional<PresentedCertificate> certificate) {
        SIPMessage message = processor.received().parse(bytes, remote, getTransport(), this::answerOnThisConnection);
        if (message == null) {
            return;
        }
        certificate.ifPresent(message::setApplicationData);
        try {
            processMessage(message);
        } catch (Exception e) {
            TransportProperties.LOG.log(Level.DEBUG, "SIP message from " + remote + "/TCP not processed", e);
        }
    }

    /** Sends on this connection only: JAIN-SIP would reconnect to the peer's port if the connection is gone. */
    private void answerOnThisConnection(byte[] answer) throws IOException {
        if (!socketChannel.isOpen()) {
            throw new IOException("connection closed");
        }
        sendMessage(answer, false);
    }

    /**
     * A 400 for a request whose length cannot be read, written at once, since the connection closes next: with
     * the stream out of step nothing after it can be read as SIP.
     */
    private void refuseStream(String reason) {
        processor.received().refuse(framer.partialMessage(), remote, getTransport(), reason,
                tls == null ? answer -> socketChannel.write(ByteBuffer.wrap(answer)) : this::answerOnThisConnection);
    }

    /** What the TLS layer sends on and delivers to. */
    private final class Records implements TlsLayer.Connection {
        @Override
        public void sendRecords(byte[] records) throws IOException {
            // the variant that files this connection's socket under its peer first, so JAIN-SIP sends on it
            FramedTcpConnection.super.sendMessage(records, !inbound);
        }

        @Override
        public void sendLastRecords(byte[] records) throws IOException {
            // written here, on the selector thread, before the connection closes: a queued write would be dropped
            ByteBuffer buffer = ByteBuffer.wrap(records);
            for (int attempt = 0; attempt < 8 && buffer.hasRemaining(); attempt++) {
                socketChannel.write(buffer);
            }
        }

        @Override
        public void plaintext(byte[] bytes) throws Exception {
            frame(bytes);
        }

        @Override
        public SipStackImpl stack() {
            return (SipStackImpl) sipStack;
        }
    }
}
