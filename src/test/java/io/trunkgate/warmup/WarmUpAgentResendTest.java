package io.trunkgate.warmup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The warm-up caller sends its INVITE again, as a UDP user agent does, while nothing comes back: a busy gateway
 * drops a new INVITE that waited half a second for a worker, and a warm-up call whose INVITE was dropped would
 * otherwise never complete. Once anything comes back, the gateway retransmits for it and the caller stops.
 */
class WarmUpAgentResendTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @Test
    void anInviteNothingComesBackForIsSentFourTimesMore() throws Exception {
        try (DatagramSocket gateway = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
             WarmUpAgent agent = new WarmUpAgent(LOOPBACK, (InetSocketAddress) gateway.getLocalSocketAddress(),
                     "warm-up-test-")) {
            Thread caller = placeOneCall(agent);
            caller.join(20_000);
            List<String> invites = drain(gateway);
            assertEquals(5, invites.size(), "the INVITE and its copies");
            assertTrue(invites.stream().allMatch(invites.get(0)::equals), "the same INVITE each time");
            assertTrue(invites.get(0).startsWith("INVITE ") && invites.get(0).contains("Call-ID: warm-up-test-"),
                    invites.get(0));
        }
    }

    @Test
    void anInviteIsNotSentAgainOnceAnythingCameBack() throws Exception {
        try (DatagramSocket gateway = new DatagramSocket(new InetSocketAddress(LOOPBACK, 0));
             WarmUpAgent agent = new WarmUpAgent(LOOPBACK, (InetSocketAddress) gateway.getLocalSocketAddress(),
                     "warm-up-test-")) {
            Thread caller = placeOneCall(agent);
            gateway.setSoTimeout(10_000);
            String invite = receive(gateway);
            String trying = "SIP/2.0 100 Trying\r\n" + headers(invite) + "Content-Length: 0\r\n\r\n";
            byte[] bytes = trying.getBytes(StandardCharsets.US_ASCII);
            gateway.send(new DatagramPacket(bytes, bytes.length, lastSender));
            caller.join(20_000);
            // a copy due as the 100 Trying arrived may cross it; without the 100 there would be four
            assertTrue(drain(gateway).size() <= 1, "copies sent after 100 Trying came back");
        }
    }

    /** One call placed on a thread of its own, which ends at the warm-up's 4 s deadline. */
    private static Thread placeOneCall(WarmUpAgent agent) {
        Thread caller = new Thread(() -> {
            try {
                agent.run("99999", 1, () -> false, 1, System.nanoTime() + TimeUnit.SECONDS.toNanos(4));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        caller.start();
        return caller;
    }

    /** What the socket holds once the caller has stopped sending. */
    private List<String> drain(DatagramSocket socket) throws Exception {
        List<String> received = new ArrayList<>();
        socket.setSoTimeout(200);
        while (true) {
            try {
                received.add(receive(socket));
            } catch (SocketTimeoutException empty) {
                return received;
            }
        }
    }

    private InetSocketAddress lastSender;

    private String receive(DatagramSocket socket) throws Exception {
        byte[] buffer = new byte[65535];
        DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
        socket.receive(packet);
        lastSender = (InetSocketAddress) packet.getSocketAddress();
        return new String(buffer, 0, packet.getLength(), StandardCharsets.US_ASCII);
    }

    /** The Via, From, To, Call-ID and CSeq of {@code request}, as a response echoes them. */
    private static String headers(String request) {
        StringBuilder echoed = new StringBuilder();
        for (String line : request.split("\r\n")) {
            String name = line.contains(":") ? line.substring(0, line.indexOf(':')).trim().toLowerCase() : "";
            if (List.of("via", "v", "from", "f", "to", "t", "call-id", "i", "cseq").contains(name)) {
                echoed.append(line).append("\r\n");
            }
        }
        return echoed.toString();
    }
}
