package io.trunkgate.sip.transport;

import gov.nist.javax.sip.SipStackImpl;
import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedList;
import org.slf4j.event.Level;

/**
 * A UDP listener: JAIN-SIP's, with its own receive loop. Each datagram is read into one reused buffer and copied
 * out at its size (JAIN-SIP allocates a new buffer of the largest message size, 64 KiB, for every datagram, and
 * the thread that reads the socket is the one every message of the gateway passes through), then put to the
 * {@link NewCallTriage}, and what goes on is queued for the workers in its call's lane
 * ({@link PerCallDatagramQueue}). The workers are JAIN-SIP's. The loop also reads the {@link SocketWaitProbe}s
 * the listener sends itself, which say how long datagrams wait in the socket before the loop gets to them.
 */
final class GuardedUdpMessageProcessor extends UDPMessageProcessor {

    private final int workers;
    private final int maxMessageSize;
    private final PerCallDatagramQueue queue;
    private final NewCallTriage triage;
    private final SocketWaitProbe socketWait;

    GuardedUdpMessageProcessor(InetAddress address, SIPTransactionStack stack, int port, int workers,
                               int maxMessageSize, QueueDelay delay, PerCallDatagramQueue queue,
                               NewCallTriage triage) throws IOException {
        super(address, stack, port);
        this.workers = workers;
        this.maxMessageSize = maxMessageSize;
        this.queue = queue;
        this.triage = triage;
        this.messageQueue = queue;
        this.socketWait = delay.probe(sock);
        StackInternals.sendFromListeningSockets(stack);
    }

    @Override
    public void run() {
        LinkedList<UDPMessageChannel> channels = new LinkedList<>();
        for (int i = 0; i < workers; i++) {
            // the constructor starts the worker, which takes from this processor's queue
            String name = ((SipStackImpl) sipStack).getStackName() + "-UDPMessageChannelThread-" + i;
            channels.add(new UDPMessageChannel(sipStack, this, name) {
            });
        }
        messageChannels = channels;
        byte[] buffer = new byte[maxMessageSize];
        DatagramPacket received = new DatagramPacket(buffer, buffer.length);
        while (isRunning) {
            try {
                received.setLength(buffer.length);
                sock.receive(received);
                if (socketWait.read(buffer, received.getLength())) {
                    continue;
                }
                socketWait.heard();
                long receivedAt = System.currentTimeMillis();
                InetSocketAddress source = (InetSocketAddress) received.getSocketAddress();
                byte[] message = Arrays.copyOf(buffer, received.getLength());
                DatagramPacket packet = new DatagramPacket(message, message.length, source);
                if (!triage.handled(message, 0, message.length, source, () -> waitAhead(packet),
                        answer -> sock.send(new DatagramPacket(answer, answer.length, source)))) {
                    queue.offer(new DatagramQueuedMessageDispatch(packet, receivedAt));
                }
            } catch (IOException | RuntimeException e) {
                if (!isRunning) {
                    return;
                }
                GuardedTransports.LOG.log(Level.WARN, "UDP listener " + getIpAddress().getHostAddress() + ":"
                        + getPort() + " failed to read a datagram: " + e);
            }
        }
    }

    /** How long what is ahead of this datagram has waited: in the socket, then for the worker it goes to. */
    private Duration waitAhead(DatagramPacket packet) {
        return queue.waitAhead(packet).plusNanos(socketWait.waitNanos());
    }
}
