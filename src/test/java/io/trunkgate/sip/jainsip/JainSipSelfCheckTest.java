package io.trunkgate.sip.jainsip;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import gov.nist.javax.sip.stack.NioTcpMessageChannel;
import gov.nist.javax.sip.stack.UDPMessageChannel;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The start-up check that the JAIN-SIP on the class path is the one the adapter's workarounds target. */
class JainSipSelfCheckTest {

    @Test
    void theJainSipOnTheClassPathHasEverythingTheAdapterReachesFor() {
        assertDoesNotThrow(JainSipSelfCheck::verify);
        assertEquals(List.of(), JainSipSelfCheck.missing(JainSipSelfCheck.TARGET_VERSION,
                List.copyOf(StackInternals.REFLECTED), CoarseSipTimer.RECOGNISED_TASKS));
    }

    @Test
    void aMissingMemberIsNamedWithItsTypeAndTheDocumentToRead() {
        List<String> missing = JainSipSelfCheck.missing(JainSipSelfCheck.TARGET_VERSION, List.of(
                ReflectedMember.field(UDPMessageChannel.class, "incomingPackets", DatagramPacket.class),
                ReflectedMember.field(UDPMessageChannel.class, "incomingPacket", DatagramSocket.class),
                ReflectedMember.method(NioTcpMessageChannel.class, "addBytes", void.class, String.class),
                StackInternals.UDP_FLAG), List.of());

        assertEquals(List.of(
                "field gov.nist.javax.sip.stack.UDPMessageChannel.incomingPackets of type java.net.DatagramPacket",
                "field gov.nist.javax.sip.stack.UDPMessageChannel.incomingPacket of type java.net.DatagramSocket",
                "method gov.nist.javax.sip.stack.NioTcpMessageChannel.addBytes(java.lang.String) returning void"),
                missing);
        String message = JainSipSelfCheck.message(missing);
        assertTrue(message.contains("UDPMessageChannel.incomingPackets") && message.contains("docs/jain-sip.md")
                && message.contains("1.3.0-91"), message);
    }

    @Test
    void aTimerTaskCoarseSipTimerCouldNoLongerRecogniseFailsTheCheck() {
        List<String> missing = JainSipSelfCheck.missing(JainSipSelfCheck.TARGET_VERSION, List.of(),
                List.of(CoarseSipTimer.LINGER_TIMER, "gov.nist.javax.sip.stack.SIPServerTransactionImpl$9",
                        "gov.nist.javax.sip.stack.SIPTransactionImpl"));

        assertEquals(List.of("timer task class gov.nist.javax.sip.stack.SIPServerTransactionImpl$9 (CoarseSipTimer"
                        + " recognises it by name)", "timer task class gov.nist.javax.sip.stack.SIPTransactionImpl"
                        + " (CoarseSipTimer recognises it by name)"), missing, "absent, and not a timer task");
    }

    @Test
    void anotherVersionFailsTheCheckNamingTheVersionFound() {
        assertEquals(List.of("jain-sip-ri version 1.3.0-92 (found 1.3.0-91)"),
                JainSipSelfCheck.missing("1.3.0-92", List.of(), List.of()));
    }
}
