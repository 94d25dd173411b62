package io.trunkgate.sip;

import static io.trunkgate.testing.SipSockets.closeAll;
import static io.trunkgate.testing.SipSockets.closedWithin;
import static io.trunkgate.testing.SipSockets.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.testing.SipSockets;
import io.trunkgate.config.TcpLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.testing.SipAgent;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sip.ListeningPoint;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The caps on TCP connections hold: beyond {@value #PER_SOURCE} from one address, or {@value #TOTAL} in all, a
 * new connection is closed at once while those already open stay open; once they close, a call over TCP works.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TcpConnectionCapsTest {

    private static final int PER_SOURCE = 4;
    private static final int TOTAL = 20;
    /** A refused connection is closed as it is accepted; an accepted one is not closed within this. */
    private static final Duration REFUSAL = Duration.ofMillis(500);

    private SipAgent carrier;
    private SipAgent tcpCaller;
    private Gateway gateway;
    private int port;

    @BeforeAll
    void start() throws Exception {
        carrier = SipAgent.start("127.0.0.53");
        tcpCaller = SipAgent.start("127.0.0.62", ListeningPoint.TCP);
        port = SipSockets.freePort();
        gateway = SipSockets.startGateway(port,
                new TcpLimits(Duration.ofSeconds(60), Duration.ofSeconds(10), TOTAL, PER_SOURCE), carrier,
                "127.0.0.62");
    }

    @AfterAll
    void stop() {
        gateway.close();
        carrier.close();
        tcpCaller.close();
    }

    @Test
    void perSourceAndTotalCapsHoldAndACallOverTcpWorksAfterwards() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < PER_SOURCE; i++) {
                open.add(connect("127.0.0.64", port));
            }
            for (int i = 0; i < 3; i++) {
                try (Socket extra = connect("127.0.0.64", port)) {
                    assertTrue(closedWithin(extra, REFUSAL), "connection " + (PER_SOURCE + i + 1) + " from one source");
                }
            }
            for (int source = 65; open.size() < TOTAL; source++) {
                for (int i = 0; i < PER_SOURCE && open.size() < TOTAL; i++) {
                    open.add(connect("127.0.0." + source, port));
                }
            }
            for (int i = 0; i < 3; i++) {
                try (Socket extra = connect("127.0.0.90", port)) {
                    assertTrue(closedWithin(extra, REFUSAL), "connection " + (TOTAL + i + 1) + " in all");
                }
            }
            for (Socket socket : open) {
                assertFalse(closedWithin(socket, Duration.ofMillis(10)), "a connection within the caps was closed");
            }
        } finally {
            closeAll(open);
        }
        awaitRoomForAConnection();
        SipAgent.Call call = tcpCaller.invite(SipSockets.GW, port, "+447000001");
        Response answer = call.awaitFinal(5000);
        assertNotNull(answer, "no answer to a call over TCP after the caps were hit");
        assertEquals(200, answer.getStatusCode());
    }

    /** Waits until the gateway has closed its ends of the test's connections: a new connection stays open. */
    private void awaitRoomForAConnection() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (true) {
            try (Socket probe = connect("127.0.0.91", port)) {
                if (!closedWithin(probe, REFUSAL)) {
                    return;
                }
            }
            assertTrue(System.nanoTime() < deadline, "the gateway still refuses connections after they closed");
        }
    }
}
