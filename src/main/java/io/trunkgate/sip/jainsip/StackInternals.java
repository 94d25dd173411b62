package io.trunkgate.sip.transport;

import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.net.DatagramPacket;
import java.net.DatagramSocket;

/**
 * The members of JAIN-SIP 1.3.0-91 the UDP path reaches without an accessor: a UDP worker parses a datagram
 * before it records the sender's port anywhere public; the listening socket, which a 400 must leave from
 * (RFC 3581: symmetric response routing through NATs), is protected; the stack's switch to send UDP from
 * its listening sockets, which JAIN-SIP's own factory sets for the listeners it creates, is package-private
 * ({@link GuardedUdpMessageProcessor} is created instead); and a channel handles a datagram only in a private
 * method its worker loop calls, which the receive loop calls too. A JAIN-SIP that renames them fails at start,
 * not at the first datagram.
 */
final class StackInternals {

    private static final VarHandle DATAGRAM_BEING_PROCESSED;
    private static final VarHandle LISTENING_SOCKET;
    private static final VarHandle UDP_FROM_LISTENING_SOCKETS;
    private static final MethodHandle PROCESS_DATAGRAM;

    static {
        try {
            DATAGRAM_BEING_PROCESSED = MethodHandles.privateLookupIn(UDPMessageChannel.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageChannel.class, "incomingPacket", DatagramPacket.class);
            LISTENING_SOCKET = MethodHandles.privateLookupIn(UDPMessageProcessor.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageProcessor.class, "sock", DatagramSocket.class);
            UDP_FROM_LISTENING_SOCKETS = MethodHandles.privateLookupIn(SIPTransactionStack.class,
                    MethodHandles.lookup()).findVarHandle(SIPTransactionStack.class, "udpFlag", boolean.class);
            PROCESS_DATAGRAM = MethodHandles.privateLookupIn(UDPMessageChannel.class, MethodHandles.lookup())
                    .findVirtual(UDPMessageChannel.class, "processIncomingDataPacket",
                            MethodType.methodType(void.class, DatagramPacket.class));
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

    /**
     * Has {@code channel} handle {@code datagram} on the calling thread, as a worker does with one it took from
     * the queue (a worker's loop is the only caller JAIN-SIP has for this).
     */
    static void process(UDPMessageChannel channel, DatagramPacket datagram) throws Exception {
        DATAGRAM_BEING_PROCESSED.set(channel, datagram);
        try {
            PROCESS_DATAGRAM.invokeExact(channel, datagram);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable impossible) {
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Has the stack send UDP from its listening sockets (what JAIN-SIP's own factory sets when it creates a UDP
     * listener): otherwise each message leaves from a new socket on a random port.
     */
    static void sendFromListeningSockets(SIPTransactionStack stack) {
        UDP_FROM_LISTENING_SOCKETS.set(stack, true);
    }

    static DatagramSocket listeningSocket(UDPMessageProcessor processor) {
        return (DatagramSocket) LISTENING_SOCKET.get(processor);
    }
}
