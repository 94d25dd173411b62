package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.RedisMode;
import io.trunkgate.config.RedisSettings;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Overload shedding and orderly shutdown, with the gateway's embedded redis-server. */
class GatewayLifecycleTest {

    private static final String GW = "127.0.0.1";

    private SipAgent caller;
    private SipAgent ringing;
    private SipAgent paced;
    private Gateway gateway;
    private int port;

    @BeforeEach
    void startAgents() throws Exception {
        caller = SipAgent.start("127.0.0.61");
        ringing = SipAgent.start("127.0.0.62");
        ringing.behave(Behaviour.RING);
        paced = SipAgent.start("127.0.0.63");
    }

    private void startGateway(UnaryOperator<TestConfigs> overload) throws Exception {
        startGateway(overload, System::nanoTime);
    }

    private void startGateway(UnaryOperator<TestConfigs> overload, LongSupplier proxyClock) throws Exception {
        port = RedisServerProcess.freePort();
        RedisSettings embedded = new RedisSettings(RedisMode.EMBEDDED, List.of(), Optional.empty(), Optional.empty(),
                Duration.ofMillis(500), "tg", 0);
        gateway = Gateway.start(overload.apply(new TestConfigs(embedded, port))
                .peer("p", "127.0.0.61", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("ringing", ringing, 1000, Duration.ofSeconds(2), Duration.ofSeconds(30))
                .carrier("paced", paced, 0.2, Duration.ofSeconds(20), Duration.ofSeconds(30))
                .route("+1", "ringing")
                .route("+2", "paced")
                .build(), proxyClock);
    }

    @AfterEach
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        Stream.of(caller, ringing, paced).parallel().forEach(SipAgent::close);
    }

    @Test
    void beyondMaxCallsInProgressNewCallsGet503AtOnceAndTheGatewayRecovers() throws Exception {
        startGateway(configs -> configs.maxCallsInProgress(3));
        List<SipAgent.Call> inProgress = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inProgress.add(caller.invite(GW, port, "+1000" + i));
        }
        assertTrue(ringing.await("INVITE", 3, 3000));
        long start = System.nanoTime();
        Response shed = caller.invite(GW, port, "+10009").awaitFinal(2000);
        assertNotNull(shed);
        assertEquals(503, shed.getStatusCode());
        assertEquals(1, ((RetryAfterHeader) shed.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
        assertTrue(System.nanoTime() - start < 1_000_000_000L, "shed at once");

        for (SipAgent.Call call : inProgress) {
            call.cancel();
            assertEquals(487, call.awaitFinal(3000).getStatusCode());
        }
        SipAgent.Call after = caller.invite(GW, port, "+10010");
        assertTrue(ringing.await("INVITE", 4, 3000), "a new call is taken again once the load is gone");
        after.cancel();
    }

    @Test
    void beyondTheNewCallRateInvitesGet503StatelesslyAndTheirAcksGoNowhere() throws Exception {
        ManualTime time = new ManualTime();
        // a burst of 1, then one call every 500 ms of the proxy's clock, which stands still until the test moves it
        startGateway(configs -> configs.maxNewCallsPerSecond(2), time::nanoTime);
        List<SipAgent.Call> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            calls.add(caller.invite(GW, port, "+1100" + i));
        }
        int shed = 0;
        for (SipAgent.Call call : calls) {
            Response first = call.next(2000);
            assertNotNull(first);
            if (first.getStatusCode() == 503) {
                shed++;
                assertEquals(1, ((RetryAfterHeader) first.getHeader(RetryAfterHeader.NAME)).getRetryAfter());
                assertTrue(first.getHeader(ReasonHeader.NAME).toString().contains("new-call rate"), first.toString());
            } else {
                assertEquals(100, first.getStatusCode(), "a call within the rate is taken");
            }
        }
        assertEquals(5, shed, "6 back-to-back INVITEs at 2 calls/s, a burst of 1");
        assertTrue(ringing.await("INVITE", 1, 3000));
        Await.until(Duration.ofSeconds(10), this::shedAcksAbsorbed, acks -> acks >= 5);

        time.advance(Duration.ofMillis(250));
        SipAgent.Call early = caller.invite(GW, port, "+11010");
        assertEquals(503, firstStatus(early), "250 ms on, half a call has refilled");
        time.advance(Duration.ofMillis(250));
        SipAgent.Call after = caller.invite(GW, port, "+11011");
        assertEquals(100, firstStatus(after), "500 ms on, a call has refilled");
        shed++;

        // Only once the later call has reached the carrier: nothing the shed calls left behind could still come.
        assertTrue(ringing.await("INVITE", 2, 3000), "the later call reached the carrier");
        assertEquals(2, ringing.received("INVITE").size(), "a shed call never reaches a carrier");
        // The caller's stack ACKs each 503; the gateway absorbs each ACK as it arrives: none reaches the stack or
        // goes anywhere (were it forwarded to the Request-URI, the gateway itself, it would come back until
        // Max-Forwards ran out).
        int sheds = shed;
        Await.until(Duration.ofSeconds(10), this::shedAcksAbsorbed, acks -> acks >= sheds);
        String metrics = gateway.metrics().scrape();
        assertTrue(shedAcksAbsorbed() >= shed, metrics);
        assertEquals(List.of(), ringing.received("ACK"), "no ACK of a 503 went anywhere");
        assertEquals(0, Metrics.value(metrics, "trunkgate_sip_requests_total", Map.of("method", "ACK")).orElse(0));
        assertEquals(shed, Metrics.value(metrics, "trunkgate_calls_shed_total",
                Map.of("peer", "p", "reason", "call_rate")).orElse(0));
        calls.forEach(call -> cancelQuietly(call));
        cancelQuietly(after);
    }

    @Test
    void aNewCallOverTcpIsShedOnItsOwnConnectionAndItsAckAbsorbed() throws Exception {
        ManualTime time = new ManualTime();
        startGateway(configs -> configs.maxNewCallsPerSecond(2), time::nanoTime);
        SipAgent tcpCaller = SipAgent.start("127.0.0.61", "TCP");
        try {
            SipAgent.Call taken = tcpCaller.invite(GW, port, "+12000");
            assertEquals(100, firstStatus(taken), "the burst of one call is taken");
            Response shed = tcpCaller.invite(GW, port, "+12001").next(2000);
            assertNotNull(shed);
            assertEquals(503, shed.getStatusCode());
            assertTrue(shed.getHeader(ReasonHeader.NAME).toString().contains("new-call rate"), shed.toString());
            assertNotNull(((ToHeader) shed.getHeader(ToHeader.NAME)).getTag(), "a final response's To has a tag");
            Await.until(Duration.ofSeconds(10), this::shedAcksAbsorbed, acks -> acks >= 1);
            assertEquals(1, Metrics.value(gateway.metrics().scrape(), "trunkgate_calls_shed_total",
                    Map.of("peer", "p", "reason", "call_rate")).orElse(0));
            assertTrue(ringing.await("INVITE", 1, 3000));
            assertEquals(1, ringing.received("INVITE").size(), "the shed call never reaches a carrier");
            cancelQuietly(taken);
        } finally {
            tcpCaller.close();
        }
    }

    /** The status of the call's first response (it comes at once: 100 Trying, or a shed call's 503); 0 if none. */
    private static int firstStatus(SipAgent.Call call) throws InterruptedException {
        Response first = call.next(2000);
        return first == null ? 0 : first.getStatusCode();
    }

    /** Until the carrier's 180 has come back through the gateway: the call at the carrier may be cancelled. */
    @Test
    void aCopyOfAnAnsweredInviteIsNotShedWhileNewCallsAre() throws Exception {
        SipAgent answering = SipAgent.start("127.0.0.64");
        try (DatagramSocket raw = new DatagramSocket(new InetSocketAddress("127.0.0.61", 0))) {
            startGateway(configs -> configs.maxCallsInProgress(1)
                    .carrier("answering", answering, 1000, Duration.ofSeconds(2), Duration.ofSeconds(30))
                    .route("+3", "answering"));
            raw.setSoTimeout(10_000);
            byte[] invite = rawRequest(raw, "INVITE", "+30001");
            raw.send(new DatagramPacket(invite, invite.length, new InetSocketAddress(GW, port)));
            assertTrue(receiveUntil(raw, " 200 ").contains("CSeq: 1 INVITE"), "the call is answered");

            // a ringing call fills max-calls-in-progress: every new INVITE is shed from now on
            SipAgent.Call inProgress = caller.invite(GW, port, "+10001");
            assertTrue(ringing.await("INVITE", 1, 3000));
            assertEquals(503, caller.invite(GW, port, "+10002").awaitFinal(3000).getStatusCode(), "a new call");

            // the caller read the 200 late and sent its INVITE again meanwhile; an OPTIONS after it shows that
            // the copy has been read (a shed INVITE is answered as it is read, before the next datagram)
            raw.send(new DatagramPacket(invite, invite.length, new InetSocketAddress(GW, port)));
            byte[] options = rawRequest(raw, "OPTIONS", "+30001");
            raw.send(new DatagramPacket(options, options.length, new InetSocketAddress(GW, port)));
            List<String> before = new ArrayList<>();
            for (String message = receiveUntil(raw, "SIP/2.0 "); !message.contains("CSeq: 1 OPTIONS");
                    message = receiveUntil(raw, "SIP/2.0 ")) {
                before.add(message);
            }
            assertTrue(before.stream().noneMatch(message -> message.startsWith("SIP/2.0 503")), before.toString());
            cancelQuietly(inProgress);
        } finally {
            answering.close();
        }
    }

    /** A request of a new dialog from the socket, with a Call-ID of its own. */
    private static byte[] rawRequest(DatagramSocket from, String method, String user) {
        String host = from.getLocalAddress().getHostAddress() + ":" + from.getLocalPort();
        String id = method.toLowerCase() + "-" + System.nanoTime();
        return (method + " sip:" + user + "@" + GW + " SIP/2.0\r\n"
                + "Via: SIP/2.0/UDP " + host + ";branch=z9hG4bK" + id + "\r\n"
                + "Max-Forwards: 70\r\n"
                + "From: <sip:caller@" + host + ">;tag=" + id + "\r\n"
                + "To: <sip:" + user + "@" + GW + ">\r\n"
                + "Call-ID: " + id + "\r\n"
                + "CSeq: 1 " + method + "\r\n"
                + "Contact: <sip:caller@" + host + ">\r\n"
                + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** The first message to arrive on {@code socket} whose start line contains {@code text}. */
    private static String receiveUntil(DatagramSocket socket, String text) throws Exception {
        byte[] buffer = new byte[65_536];
        while (true) {
            DatagramPacket packet = new DatagramPacket(buffer, buffer.length);
            socket.receive(packet);
            String message = new String(buffer, 0, packet.getLength(), StandardCharsets.US_ASCII);
            if (message.substring(0, message.indexOf('\r')).contains(text)) {
                return message;
            }
        }
    }

    private static void awaitRinging(SipAgent.Call call) throws Exception {
        Response response;
        do {
            response = call.next(3000);
        } while (response != null && response.getStatusCode() != 180);
        assertNotNull(response, "180 relayed");
    }

    /** Until the gateway holds one call for the carrier (its slot reserved, 5 s away at 0.2 cps). */
    private void awaitHeld(String carrier) {
        assertTrue(Await.until(Duration.ofSeconds(3), () -> gateway.pacer().heldCount(carrier), held -> held >= 1) >= 1,
                "no call held for " + carrier);
    }

    private double shedAcksAbsorbed() {
        return Metrics.value(gateway.metrics().scrape(), "trunkgate_sip_shed_acks_total", Map.of()).orElse(0);
    }

    private static void cancelQuietly(SipAgent.Call call) {
        try {
            call.cancel();
        } catch (Exception alreadyAnswered) {
            // shed calls have their final answer; nothing to cancel
        }
    }

    @Test
    void shutdownAnswersHeldCallsCancelsForwardedOnesAndStopsEmbeddedRedis() throws Exception {
        startGateway(configs -> configs.maxCallsInProgress(3));
        RedisServerProcess embedded = gateway.redis().embeddedServer().orElseThrow();
        assertEquals(200, caller.invite(GW, port, "+2000").awaitFinal(3000).getStatusCode());
        SipAgent.Call held = caller.invite(GW, port, "+2001");
        SipAgent.Call atCarrier = caller.invite(GW, port, "+1001");
        assertTrue(ringing.await("INVITE", 1, 3000));
        awaitRinging(atCarrier);
        awaitHeld("paced");

        long start = System.nanoTime();
        gateway.close();
        long tookMs = (System.nanoTime() - start) / 1_000_000;

        assertEquals(503, held.awaitFinal(3000).getStatusCode(), "a held call is answered 503");
        assertEquals(487, atCarrier.awaitFinal(3000).getStatusCode(), "a call at the carrier is cancelled there");
        assertEquals(1, ringing.received("CANCEL").size());
        assertEquals(1, paced.received("INVITE").size(), "the held call never reached its carrier");
        assertTrue(tookMs < 6000, "shutdown took " + tookMs + " ms");
        assertFalse(embedded.isRunning(), "the embedded redis-server is stopped with the gateway");
        gateway = null;
    }
}
