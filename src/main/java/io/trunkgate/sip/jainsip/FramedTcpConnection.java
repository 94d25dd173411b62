package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.sip.wire.SipHead;
import io.trunkgate.sip.wire.SipStreamFramer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.event.Level;

/**
 * One SIP TCP connection, inbound or to a carrier. Its bytes are cut into messages by a {@link SipStreamFramer}
 * and parsed by the stack's {@link ReceivedMessageParser} on the stack's workers (in order per Call-ID, kept by a
 * {@link PerCallSequencer}), which replaces JAIN-SIP's NIO framer and, with it, its silence about requests it
 * cannot parse. It remembers when it last received anything and since when a message is incomplete, for
 * {@link CappedTcpListener}'s sweep.
 */
final class FramedTcpConnection extends NioTcpMessageChannel {

    /** Why a connection is to be closed. */
    enum Expiry { NONE, IDLE, MESSAGE_INCOMPLETE }

    private static final long NO_PARTIAL_MESSAGE = Long.MAX_VALUE;
    private static final byte[] KEEP_ALIVE_PONG = "\r\n".getBytes(StandardCharsets.US_ASCII);

    private final CappedTcpListener processor;
    private final SipStreamFramer framer;
    private final PerCallSequencer inCallOrder =
            new PerCallSequencer(task -> sipStack.getSelfRoutingThreadpoolExecutor().execute(task));
    private final InetSocketAddress remote;
    private final boolean inbound;
    private final AtomicBoolean socketClosed = new AtomicBoolean();
    private volatile long lastReceivedNanos = System.nanoTime();
    private volatile long partialMessageSinceNanos = NO_PARTIAL_MESSAGE;
    private volatile boolean shuttingDown;

    /** A connection a peer opened. */
    FramedTcpConnection(CappedTcpListener processor, SocketChannel socket) throws IOException {
        super(processor, socket);
        this.messageProcessor = processor;
        this.processor = processor;
        this.framer = new SipStreamFramer(processor.maxMessageSize());
        this.remote = (InetSocketAddress) socket.getRemoteAddress();
        this.inbound = true;
    }

    /** A connection the gateway opens (or reuses) to {@code host:port}. */
    FramedTcpConnection(InetAddress host, int port, SIPTransactionStack stack,
                        CappedTcpListener processor) throws IOException {
        super(host, port, stack, processor);
        this.processor = processor;
        this.framer = new SipStreamFramer(processor.maxMessageSize());
        this.remote = new InetSocketAddress(host, port);
        this.inbound = false;
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
        super.sendTCPMessage(message, receiverAddress, receiverPort, retry);
    }

    /** Called by the selector thread with each chunk read from the socket. */
    @Override
    protected void addBytes(byte[] bytes) throws Exception {
        long now = System.nanoTime();
        lastReceivedNanos = now;
        boolean partialBefore = framer.hasPartialMessage();
        int completed;
        try {
            completed = framer.add(bytes, new SipStreamFramer.Receiver() {
                @Override
                public void message(byte[] message, SipHead head) {
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
        super.close(removeSocket, stopKeepAliveTask);
        processor.closed(this, closing, socketClosed.compareAndSet(false, true), removeSocket);
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
        if (processor.newCalls().handled(head, remote, () -> Duration.ZERO, this::answerOnThisConnection)) {
            return;
        }
        inCallOrder.execute(head.callId(), () -> process(message));
    }

    private void process(byte[] bytes) {
        SIPMessage message = processor.received().parse(bytes, remote, "TCP", this::answerOnThisConnection);
        if (message == null) {
            return;
        }
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
        processor.received().refuse(framer.partialMessage(), remote, "TCP", reason,
                answer -> socketChannel.write(ByteBuffer.wrap(answer)));
    }
}
