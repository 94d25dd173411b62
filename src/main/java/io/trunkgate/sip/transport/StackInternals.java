package io.trunkgate.sip.transport;

import gov.nist.javax.sip.stack.DatagramQueuedMessageDispatch;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.concurrent.BlockingQueue;

/**
 * The fields of JAIN-SIP 1.3.0-91 the UDP path reaches without an accessor: a UDP worker parses a datagram
 * before it records the sender's port anywhere public; the listening socket, which a 400 must leave from
 * (RFC 3581: symmetric response routing through NATs), is protected; and so is the queue between the listener
 * and the workers, which {@link PerCallDatagramQueue} replaces. A JAIN-SIP that renames them fails at start, not
 * at the first datagram.
 */
final class StackInternals {

    private static final VarHandle DATAGRAM_BEING_PROCESSED;
    private static final VarHandle LISTENING_SOCKET;
    private static final VarHandle DATAGRAM_QUEUE;

    static {
        try {
            DATAGRAM_BEING_PROCESSED = MethodHandles.privateLookupIn(UDPMessageChannel.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageChannel.class, "incomingPacket", DatagramPacket.class);
            LISTENING_SOCKET = MethodHandles.privateLookupIn(UDPMessageProcessor.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageProcessor.class, "sock", DatagramSocket.class);
            DATAGRAM_QUEUE = MethodHandles.privateLookupIn(UDPMessageProcessor.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageProcessor.class, "messageQueue", BlockingQueue.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private StackInternals() {
    }

    /** The datagram a UDP worker thread is processing; read it on that thread. */
    static DatagramPacket datagramBeingProcessed(UDPMessageChannel worker) {
        return (DatagramPacket) DATAGRAM_BEING_PROCESSED.get(worker);
    }

    /** Call before the processor starts: its workers take from the queue it has when they start. */
    static void replaceDatagramQueue(UDPMessageProcessor processor, BlockingQueue<DatagramQueuedMessageDispatch> queue) {
        DATAGRAM_QUEUE.set(processor, queue);
    }

    static DatagramSocket listeningSocket(UDPMessageProcessor processor) {
        return (DatagramSocket) LISTENING_SOCKET.get(processor);
    }
}
