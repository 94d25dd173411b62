package io.trunkgate.sip.transport;

import gov.nist.javax.sip.stack.UDPMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageProcessor;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.DatagramPacket;
import java.net.DatagramSocket;

/**
 * The two fields of JAIN-SIP 1.3.0-91 the UDP path reads without an accessor: a UDP worker parses a datagram
 * before it records the sender's port anywhere public, and the listening socket, which a 400 must leave from
 * (RFC 3581: symmetric response routing through NATs), is protected. A JAIN-SIP that renames them fails at
 * start, not at the first bad datagram.
 */
final class StackInternals {

    private static final VarHandle DATAGRAM_BEING_PROCESSED;
    private static final VarHandle LISTENING_SOCKET;

    static {
        try {
            DATAGRAM_BEING_PROCESSED = MethodHandles.privateLookupIn(UDPMessageChannel.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageChannel.class, "incomingPacket", DatagramPacket.class);
            LISTENING_SOCKET = MethodHandles.privateLookupIn(UDPMessageProcessor.class, MethodHandles.lookup())
                    .findVarHandle(UDPMessageProcessor.class, "sock", DatagramSocket.class);
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

    static DatagramSocket listeningSocket(UDPMessageProcessor processor) {
        return (DatagramSocket) LISTENING_SOCKET.get(processor);
    }
}
