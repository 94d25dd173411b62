package io.trunkgate.sip.jainsip;

import java.util.Optional;
import gov.nist.core.HostPort;
import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.MessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import io.trunkgate.capture.Capture;
import io.trunkgate.config.Transport;
import io.trunkgate.overload.OverloadController;
import io.trunkgate.overload.ReceiveLoop;
import io.trunkgate.sip.wire.NewCallTriage;
import io.trunkgate.sip.wire.SipHead;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedList;
import org.slf4j.event.Level;

/**
 * A UDP listener: JAIN-SIP's, with its own receive loop. Each datagram is read into one reused buffer and copied
 * out at its size (JAIN-SIP allocates a new buffer of the largest message size, 64 KiB, for every datagram, and
 * the thread that reads the socket is the one every message of the gateway passes through), its head read once
 * ({@link SipHead}), then put to the {@link NewCallTriage}. What goes on is handled by the loop itself when no
 * worker has anything to do, handling it never waits (see {@link #handledWithoutWaiting}), and overload control's
 * meter of the loop says it may ({@link ReceiveLoop#mayHandle()}): handing it to a worker costs a thread wake-up,
 * which on a virtual machine can cost about as much as the handling itself.
 * Otherwise it is queued for the workers in its call's lane ({@link PerCallDatagramQueue}), with its head; while
 * any worker holds a datagram, everything after it is queued too, so a call's messages never overtake one another.
 * The workers are JAIN-SIP's. The loop tells its {@link ReceiveLoop} meter when it reads, and which datagrams are
 * the probes that meter sends through the socket to see how long datagrams wait there. Each datagram read, and each
 * message sent from the socket (by its channels, or as a stateless answer), is reported to its {@link Capture}.
 */
final class LanedUdpListener extends UDPMessageProcessor {

    private final int workers;
    private final int maxMessageSize;
    private final PerCallDatagramQueue queue;
    private final NewCallTriage triage;
    private final ReceiveLoop meter;
    private final Capture capture;
    private final InetSocketAddress local;

    LanedUdpListener(InetAddress address, SIPTransactionStack stack, int port, int workers,
                     int maxMessageSize, OverloadController overload, PerCallDatagramQueue queue,
                     NewCallTriage triage, Capture capture) throws IOException {
        super(address, stack, port);
        this.capture = capture;
        this.local = new InetSocketAddress(address, sock.getLocalPort());
        this.workers = workers;
        this.maxMessageSize = maxMessageSize;
        this.queue = queue;
        this.triage = triage;
        this.messageQueue = queue;
        this.meter = overload.receiveLoop(sock);
        StackInternals.sendFromListeningSockets(stack);
    }

    @Override
    public void run() {
        LinkedList<UDPMessageChannel> channels = new LinkedList<>();
        for (int i = 0; i < workers; i++) {
            // the constructor starts the worker, which takes from this processor's queue
            channels.add(new Channel(((SipStackImpl) sipStack).getStackName() + "-UDPMessageChannelThread-" + i));
        }
        messageChannels = channels;
        // the loop's own channel: this constructor starts no thread
        UDPMessageChannel here = new Channel(getIpAddress(), getPort());
        byte[] buffer = new byte[maxMessageSize];
        DatagramPacket received = new DatagramPacket(buffer, buffer.length);
        while (isRunning) {
            try {
                received.setLength(buffer.length);
                meter.reading();
                sock.receive(received);
                if (meter.read(buffer, received.getLength())) {
                    continue;
                }
                long receivedAt = System.currentTimeMillis();
                InetSocketAddress source = (InetSocketAddress) received.getSocketAddress();
                byte[] message = Arrays.copyOf(buffer, received.getLength());
                // a keep-alive (CRLFs, RFC 5626) is not a SIP message
                if (capture.on() && message.length > 0 && message[0] != '\r' && message[0] != '\n') {
                    capture.message(message, 0, message.length, source, local, Transport.UDP, Capture.nowMicros());
                }
                SipHead head = SipHead.read(message, 0, message.length);
                if (triage.handled(head, source, Optional.empty(), () -> waitAhead(head, source),
                        answer -> answer(answer, source))) {
                    continue;
                }
                DatagramPacket packet = new DatagramPacket(message, message.length, source);
                if (queue.idle() && handledWithoutWaiting(head) && meter.mayHandle()) {
                    processHere(here, packet);
                } else {
                    queue.offer(new PerCallDatagramQueue.Received(packet, receivedAt, head));
                }
            } catch (IOException | RuntimeException e) {
                if (!isRunning) {
                    return;
                }
                TransportProperties.LOG.log(Level.WARN, "UDP listener " + getIpAddress().getHostAddress() + ":"
                        + getPort() + " failed to read a datagram: " + e);
            }
        }
    }

    /** Sends a stateless answer (a 503 to a shed call, a 400) from the listening socket. */
    void answer(byte[] answer, InetSocketAddress to) throws IOException {
        sock.send(new DatagramPacket(answer, answer.length, to));
        sent(answer, to.getAddress(), to.getPort(), Transport.UDP);
    }

    private void sent(byte[] message, InetAddress to, int port, Transport transport) {
        if (capture.on()) {
            capture.message(message, 0, message.length, local, new InetSocketAddress(to, port), transport,
                    Capture.nowMicros());
        }
    }

    @Override
    public MessageChannel createMessageChannel(HostPort target) throws UnknownHostException {
        return new Channel(target.getInetAddress(), target.getPort());
    }

    @Override
    public MessageChannel createMessageChannel(InetAddress host, int port) {
        return new Channel(host, port);
    }

    /** JAIN-SIP's channel, whose messages sent are captured as they leave. */
    private final class Channel extends UDPMessageChannel {

        /** A worker, started at once, taking datagrams from the listener's queue. */
        Channel(String name) {
            super(LanedUdpListener.this.sipStack, LanedUdpListener.this, name);
        }

        /** A channel to send to {@code host:port} with, or to process datagrams on: it starts no thread. */
        Channel(InetAddress host, int port) {
            super(host, port, LanedUdpListener.this.sipStack, LanedUdpListener.this);
        }

        @Override
        protected void sendMessage(byte[] message, InetAddress to, int port, boolean reconnect) throws IOException {
            super.sendMessage(message, to, port, reconnect);
            sent(message, to, port, Transport.UDP);
        }

        @Override
        protected void sendMessage(byte[] message, InetAddress to, int port, String protocol, boolean retry)
                throws IOException {
            super.sendMessage(message, to, port, protocol, retry);
            sent(message, to, port, "TCP".equalsIgnoreCase(protocol) ? Transport.TCP : Transport.UDP);
        }
    }

    /**
     * Whether handling the datagram never waits on anything. A response below 300 is relayed to the address its
     * Via says it came from, and ends or confirms a transaction. A request outside a dialog is answered, or handed
     * to admission, which replies later on its own threads (and so does a reroute hook that calls out). A request
     * inside a dialog is relayed, or refused, at once, unless it is to be relayed to a host name, which JAIN-SIP
     * resolves on the thread that sends. A failure response may send the call to another carrier, and goes to a
     * worker. What may wait goes to a worker.
     */
    private static boolean handledWithoutWaiting(SipHead head) {
        int status = head.status();
        if (status > 0) {
            return status < 300;
        }
        return "".equals(head.toTag()) || head.routesOnlyToAddresses();
    }

    private void processHere(UDPMessageChannel here, DatagramPacket packet) {
        try {
            StackInternals.process(here, packet);
        } catch (Exception | StackOverflowError e) {
            // the loop reads every datagram of the listener: it must go on whatever one of them does
            TransportProperties.LOG.log(Level.WARN, "datagram from " + packet.getSocketAddress()
                    + " not processed: " + e);
        }
    }

    /** How long what is ahead of this datagram has waited: in the socket, then for the worker it goes to. */
    private Duration waitAhead(SipHead head, InetSocketAddress source) {
        return queue.waitAhead(head, source).plusNanos(meter.socketWaitNanos());
    }
}
