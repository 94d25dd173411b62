package io.trunkgate.sip.transport;

import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.DatagramPacket;
import java.net.DatagramSocket;

/**
 * The fields of JAIN-SIP 1.3.0-91 the UDP path reaches without an accessor: a UDP worker parses a datagram
 * before it records the sender's port anywhere public; the listening socket, which a 400 must leave from
 * (RFC 3581: symmetric response routing through NATs), is protected; and the stack's switch to send UDP from
 * its listening sockets, which JAIN-SIP's own factory sets for the listeners it creates, is package-private
 * ({@link GuardedUdpMessageProcessor} is created instead). A JAIN-SIP that renames them fails at start, not at
 * the first datagram.
 */
final class StackInternals {

    private static final VarHandle DATAGRAM_BEING_PROCESSED;
    private static final VarHandle LISTENING_SOCKET;
    private static final VarHandle UDP_FROM_LISTENING_SOCKETS;

    static {
        try {
            DATAGRAM_BEING_PROCESSED = MethodHandles.privateLookupIn(UDPMessageChannel.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageChannel.class, "incomingPacket", DatagramPacket.class);
            LISTENING_SOCKET = MethodHandles.privateLookupIn(UDPMessageProcessor.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageProcessor.class, "sock", DatagramSocket.class);
            UDP_FROM_LISTENING_SOCKETS = MethodHandles.privateLookupIn(SIPTransactionStack.class,
                    MethodHandles.lookup()).findVarHandle(SIPTransactionStack.class, "udpFlag", boolean.class);
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
