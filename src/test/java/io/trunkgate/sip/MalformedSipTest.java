package io.trunkgate.sip;

import static io.trunkgate.testing.SipSockets.GW;
import static io.trunkgate.testing.SipSockets.closedWithin;
import static io.trunkgate.testing.SipSockets.connect;
import static io.trunkgate.testing.SipSockets.invite;
import static io.trunkgate.testing.SipSockets.responsesUntilFinal;
import static io.trunkgate.testing.SipSockets.responsesUntilFinals;
import static io.trunkgate.testing.SipSockets.send;
import static io.trunkgate.testing.SipSockets.statusLine;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.SipSockets;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.SipAgent;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.slf4j.LoggerFactory;

/**
 * What the gateway does with SIP it cannot take, over TCP and UDP: valid but unusual framing is read, a request
 * that cannot be parsed gets a plain 400 no larger than itself (a few a second per source at most), and a flood
 * of them costs a bounded number of one-line log entries.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedSipTest {

    private static final String PEER = "127.0.0.80";
    private static final String SDP = "v=0\r\no=- 1 1 IN IP4 127.0.0.80\r\ns=-\r\nc=IN IP4 127.0.0.80\r\nt=0 0\r\n"
            + "m=audio 4000 RTP/AVP 0\r\n";

    private SipAgent carrier;
    private Gateway gateway;
    private int port;

    @BeforeAll
    void start() throws Exception {
        carrier = SipAgent.start("127.0.0.53");
        port = SipSockets.freePort();
        gateway = SipSockets.startGateway(port,
                new TcpLimits(Duration.ofSeconds(60), Duration.ofSeconds(10), 1000, 1000), carrier, PEER);
    }

    @AfterAll
    void stop() {
        gateway.close();
        carrier.close();
    }

    @Test
    void compactCallIdOverTcpIsConnected() throws Exception {
        try (Socket socket = connect(PEER, port)) {
            send(socket, invite(socket, port).replace("Call-ID:", "i:"));
            assertEquals("SIP/2.0 200 OK", finalStatus(socket));
        }
    }

    @Test
    void spaceBeforeTheColonOfContentLengthOverTcpIsConnected() throws Exception {
        try (Socket socket = connect(PEER, port)) {
            send(socket, invite(socket, port).replace("Content-Length:", "Content-Length :"));
            assertEquals("SIP/2.0 200 OK", finalStatus(socket));
        }
    }

    @Test
    void compactContentLengthFramesTheBodyOverTcp() throws Exception {
        try (Socket socket = connect(PEER, port)) {
            String invite = invite(socket, port).replace("Content-Length: 0\r\n",
                    "c: application/sdp\r\nl: " + SDP.length() + "\r\n") + SDP;
            send(socket, invite + invite(socket, port));
            List<String> finals = responsesUntilFinals(socket, 2, Duration.ofSeconds(5)).stream()
                    .map(SipSockets::statusLine).filter(status -> !status.startsWith("SIP/2.0 1")).toList();
            assertEquals(List.of("SIP/2.0 200 OK", "SIP/2.0 200 OK"), finals,
                    "the INVITE with a body and the one after it");
            assertEquals(SDP, new String(carrier.received("INVITE").stream()
                    .filter(r -> r.request().getRawContent() != null).findFirst().orElseThrow()
                    .request().getRawContent(), StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void parseErrorOverTcpIsAnsweredWithAPlain400AndTheConnectionGoesOn() throws Exception {
        try (Socket socket = connect(PEER, port)) {
            String bad = invite(socket, port).replace("CSeq: 1 INVITE", "CSeq: notanumber INVITE");
            send(socket, bad);
            List<String> answers = responsesUntilFinal(socket, Duration.ofSeconds(3));
            assertEquals(1, answers.size(), "one answer to a request with a broken CSeq: " + answers);
            assertPlain400(answers.get(0), bad);
            send(socket, invite(socket, port));
            assertEquals("SIP/2.0 200 OK", finalStatus(socket), "a valid INVITE on the same connection");
        }
    }

    @Test
    void unreadableContentLengthOverTcpIsAnswered400AndTheConnectionClosed() throws Exception {
        try (Socket socket = connect(PEER, port)) {
            String bad = invite(socket, port).replace("Content-Length: 0", "Content-Length: twelve");
            send(socket, bad);
            List<String> answers = responsesUntilFinal(socket, Duration.ofSeconds(3));
            assertEquals(1, answers.size(), "one answer: " + answers);
            assertPlain400(answers.get(0), bad);
            assertTrue(closedWithin(socket, Duration.ofSeconds(2)), "the connection is out of step and must close");
        }
    }

    @Test
    void parseErrorOverUdpIsAnsweredWithAPlain400NoLargerThanTheRequest() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.81"))) {
            socket.setSoTimeout(2000);
            String bad = invite("UDP", "127.0.0.81", socket.getLocalPort(), port)
                    .replaceFirst("Via: [^\r]*", "Via: garbage;;;==;branch");
            sendDatagram(socket, bad);
            assertPlain400(receive(socket), bad);
        }
    }

    @Test
    void badRequestAnswersToOneSourceAreCappedPerSecond() throws Exception {
        int sent = 40;
        int answered = 0;
        try (DatagramSocket flood = new DatagramSocket(0, InetAddress.getByName("127.0.0.82"));
             DatagramSocket other = new DatagramSocket(0, InetAddress.getByName("127.0.0.83"))) {
            long started = System.nanoTime();
            for (int i = 0; i < sent; i++) {
                sendDatagram(flood, badCSeq("UDP", "127.0.0.82", flood.getLocalPort()));
            }
            flood.setSoTimeout(1000);
            try {
                while (true) {
                    receive(flood);
                    answered++;
                }
            } catch (SocketTimeoutException drained) {
                // every answer that was sent has arrived
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            assertTrue(answered >= 1 && answered <= 5 + 5 * seconds + 1,
                    answered + " of " + sent + " bad requests answered in " + seconds + " s");
            other.setSoTimeout(2000);
            String bad = badCSeq("UDP", "127.0.0.83", other.getLocalPort());
            sendDatagram(other, bad);
            assertPlain400(receive(other), bad);
        }
    }

    /**
     * 100 malformed requests over TCP (a connection each) and 100 over UDP, with the stack's logger at INFO: at
     * most the throttle's lines, each one line without a stack trace, request text never starting a line.
     */
    @Test
    void aFloodOfMalformedRequestsCostsABoundedNumberOfOneLineLogEntries() throws Exception {
        Logger stack = (Logger) LoggerFactory.getLogger("gov.nist");
        Level stackLevel = stack.getLevel();
        stack.setLevel(Level.INFO);
        long started = System.nanoTime();
        try (LogCapture captured = LogCapture.start();
                DatagramSocket udp = new DatagramSocket(0, InetAddress.getByName("127.0.0.84"))) {
            for (int i = 0; i < 100; i++) {
                try (Socket socket = connect("127.0.0.84", port)) {
                    send(socket, malformed(i, "TCP", socket.getLocalPort()));
                    closedWithin(socket, Duration.ofMillis(20));
                }
                sendDatagram(udp, malformed(i, "UDP", udp.getLocalPort()));
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            captured.await(e -> e.getFormattedMessage().contains("suppressed"), Duration.ofSeconds(3));
            List<ILoggingEvent> lines = captured.events();
            int throttles = 2;
            double bound = throttles * (10 + 10 * (seconds + 3)) + throttles * (seconds + 4);
            assertTrue(lines.size() <= bound, lines.size() + " log lines for 200 malformed requests in " + seconds
                    + " s, more than " + bound + ":\n" + render(lines));
            assertTrue(lines.stream().anyMatch(e -> e.getFormattedMessage().contains("suppressed")),
                    "what the throttle held back is counted:\n" + render(lines));
            for (ILoggingEvent line : lines) {
                assertNull(line.getThrowableProxy(), "a stack trace: " + line);
                assertFalse(line.getFormattedMessage().contains("\r") || line.getFormattedMessage().contains("\n"),
                        "a raw line break: " + line.getFormattedMessage());
            }
        } finally {
            stack.setLevel(stackLevel);
        }
    }

    /** Broken in the ways the audit used: bad CSeq, bad Via with a bare LF, a binary start line. */
    private String malformed(int i, String transport, int sourcePort) {
        String invite = invite(transport, "127.0.0.84", sourcePort, port);
        return switch (i % 3) {
            case 0 -> invite.replace("CSeq: 1 INVITE", "CSeq: notanumber INVITE");
            case 1 -> invite.replaceFirst("Via: [^\r]*", "Via: garbage\nINJECTED 2024 ERROR fake line;;;==");
            default -> "\u0001\u0002INVITE \u0000 SIP/2.0\r\n" + invite.substring(invite.indexOf("\r\n") + 2);
        };
    }

    private String badCSeq(String transport, String source, int sourcePort) {
        return invite(transport, source, sourcePort, port).replace("CSeq: 1 INVITE", "CSeq: notanumber INVITE");
    }

    private static void assertPlain400(String answer, String request) {
        assertEquals("SIP/2.0 400 Bad Request", statusLine(answer), answer);
        assertFalse(answer.replace("\r\n", "").contains("\n") || answer.replace("\r\n", "").contains("\r"),
                "a bare line break in " + answer);
        assertTrue(answer.endsWith("Content-Length: 0\r\n\r\n"), "no body: " + answer);
        assertTrue(answer.length() <= request.length(), answer.length() + " bytes answer " + request.length());
    }

    private static String finalStatus(Socket socket) throws Exception {
        List<String> responses = responsesUntilFinal(socket, Duration.ofSeconds(5));
        assertFalse(responses.isEmpty(), "no answer over TCP");
        return statusLine(responses.get(responses.size() - 1));
    }

    private void sendDatagram(DatagramSocket socket, String text) throws Exception {
        byte[] bytes = text.getBytes(StandardCharsets.ISO_8859_1);
        socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(GW), port));
    }

    private static String receive(DatagramSocket socket) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[65535], 65535);
        socket.receive(packet);
        return new String(packet.getData(), 0, packet.getLength(), StandardCharsets.ISO_8859_1);
    }

    private static String render(List<ILoggingEvent> lines) {
        StringBuilder text = new StringBuilder();
        lines.forEach(e -> text.append(e.getLevel()).append(' ').append(e.getLoggerName()).append(" - ")
                .append(e.getFormattedMessage()).append('\n'));
        return text.toString();
    }
}
