package io.trunkgate.sip.jainsip;

import gov.nist.javax.sip.stack.SIPTransactionStack;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.DatagramPacket;
import java.util.List;

/**
 * The members of JAIN-SIP 1.3.0-91 the UDP path reaches without an accessor: a UDP worker parses a datagram
 * before it records the sender's port anywhere public; the stack's switch to send UDP from
 * its listening sockets, which JAIN-SIP's own factory sets for the listeners it creates, is package-private
 * ({@link LanedUdpListener} is created instead); and a channel handles a datagram only in a private
 * method its worker loop calls, which the receive loop calls too. {@link JainSipSelfCheck} checks {@link #REFLECTED}
 * before the stack starts (docs/jain-sip.md lists them).
 */
final class StackInternals {

    static final ReflectedMember INCOMING_PACKET =
            ReflectedMember.field(UDPMessageChannel.class, "incomingPacket", DatagramPacket.class);
    static final ReflectedMember UDP_FLAG =
            ReflectedMember.field(SIPTransactionStack.class, "udpFlag", boolean.class);
    static final ReflectedMember PROCESS_INCOMING_DATA_PACKET = ReflectedMember.method(UDPMessageChannel.class,
            "processIncomingDataPacket", void.class, DatagramPacket.class);
    static final List<ReflectedMember> REFLECTED =
            List.of(INCOMING_PACKET, UDP_FLAG, PROCESS_INCOMING_DATA_PACKET);

    private StackInternals() {
    }

    /** The handles, resolved when first used (after the self-check), not when the members are named. */
    private static final class Handles {
        static final VarHandle DATAGRAM_BEING_PROCESSED;
        static final VarHandle UDP_FROM_LISTENING_SOCKETS;
        static final MethodHandle PROCESS_DATAGRAM;

        static {
            try {
                DATAGRAM_BEING_PROCESSED = INCOMING_PACKET.varHandle();
                UDP_FROM_LISTENING_SOCKETS = UDP_FLAG.varHandle();
                PROCESS_DATAGRAM = PROCESS_INCOMING_DATA_PACKET.methodHandle();
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** The datagram a UDP worker thread is processing; read it on that thread. */
    static DatagramPacket datagramBeingProcessed(UDPMessageChannel worker) {
        return (DatagramPacket) Handles.DATAGRAM_BEING_PROCESSED.get(worker);
    }

    /**
     * Has {@code channel} handle {@code datagram} on the calling thread, as a worker does with one it took from
     * the queue (a worker's loop is the only caller JAIN-SIP has for this).
     */
    static void process(UDPMessageChannel channel, DatagramPacket datagram) throws Exception {
        Handles.DATAGRAM_BEING_PROCESSED.set(channel, datagram);
        try {
            Handles.PROCESS_DATAGRAM.invokeExact(channel, datagram);
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
        Handles.UDP_FROM_LISTENING_SOCKETS.set(stack, true);
    }
}
