package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sip.header.MaxForwardsHeader;
import javax.sip.header.ReasonHeader;
import javax.sip.header.RecordRouteHeader;
import javax.sip.header.RetryAfterHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The gateway end to end: real JAIN-SIP agents as callers and carriers on loopback addresses, a real
 * redis-server, the gateway in between.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GatewaySipTest {

    private static final String GW = "127.0.0.1";
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private int port;
    private SipAgent caller;
    private SipAgent tightCaller;
    private SipAgent stranger;
    private SipAgent carrierA;
    private SipAgent carrierB;
    private SipAgent slow;
    private SipAgent silent;
    private SipAgent rejecting;
    private SipAgent single;
    private SipAgent ringing;
    private SipAgent tcpCaller;

    @BeforeAll
    void start() throws Exception {
        caller = agents.start("127.0.0.11");
        tightCaller = agents.start("127.0.0.12");
        stranger = agents.start("127.0.0.99");
        carrierA = agents.start("127.0.0.21");
        carrierB = agents.start("127.0.0.22");
        slow = agents.start("127.0.0.23");
        silent = agents.start("127.0.0.24");
        rejecting = agents.start("127.0.0.25");
        single = agents.start("127.0.0.26");
        ringing = agents.start("127.0.0.27");
        tcpCaller = agents.start("127.0.0.13", "TCP");
        silent.behave(Behaviour.SILENT);
        rejecting.behave(Behaviour.REJECT_503);
        ringing.behave(Behaviour.RING);

        port = RedisServerProcess.freePort();
        Duration long_ = Duration.ofSeconds(5);
        TestConfigs config = TestConfigs.onSharedRedis("sip", port)
                .peer("open", "127.0.0.11", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("tight", "127.0.0.12/32", Limit.exact(Duration.ofSeconds(2), 3))
                .peer("tcp", "127.0.0.13", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("a", carrierA, 1000, long_, long_)
                .carrier("b", carrierB, 1000, long_, long_)
                .carrier("slow", slow, 10, long_, long_)
                .carrier("silent", silent, 1000, long_, Duration.ofMillis(800), "b")
                .carrier("rejecting", rejecting, 1000, long_, long_, "b")
                .carrier("single", single, 1, Duration.ofSeconds(3), long_)
                .carrier("full", single, 0.5, Duration.ZERO, long_)
                .carrier("ringing", ringing, 1000, long_, long_)
                .route("+1", "a")
                .route("+2", "slow")
                .route("+3", "silent")
                .route("+4", "full")
                .route("+5", "rejecting")
                .route("+6", "single")
                .route("+7", "ringing");
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    @BeforeEach
    void clear() {
        agents.clear();
    }

    @Test
    void admittedCallConnectsAcksAndHangsUpThroughTheGateway() throws Exception {
        SipAgent.Call call = caller.invite(GW, port, "+15551230001");
        Response answer = call.awaitFinal(5000);
        assertNotNull(answer, "no final response");
        assertEquals(200, answer.getStatusCode());
        assertTrue(call.responses().stream().anyMatch(r -> r.getStatusCode() == 180), "180 relayed");

        Request forwarded = carrierA.received(Request.INVITE).get(0).request();
        assertEquals(69, ((MaxForwardsHeader) forwarded.getHeader(MaxForwardsHeader.NAME)).getMaxForwards());
        ViaHeader top = (ViaHeader) forwarded.getHeader(ViaHeader.NAME);
        assertEquals(GW, top.getHost());
        assertEquals(port, top.getPort());
        RecordRouteHeader recordRoute = (RecordRouteHeader) forwarded.getHeader(RecordRouteHeader.NAME);
        assertTrue(recordRoute.getAddress().getURI().toString().contains(";lr"), "Record-Route with lr");
        assertEquals("+15551230001", ((javax.sip.address.SipURI) forwarded.getRequestURI()).getUser());
        assertEquals(carrierA.host(), ((javax.sip.address.SipURI) forwarded.getRequestURI()).getHost());
        assertTrue(answer.getHeader(RecordRouteHeader.NAME) != null, "the caller learns the route set");

        call.ack();
        assertTrue(carrierA.await(Request.ACK, 1, 2000), "ACK reached the carrier through the gateway");
        Response byeAnswer = call.bye(3000);
        assertNotNull(byeAnswer, "no answer to BYE");
        assertEquals(200, byeAnswer.getStatusCode());
        assertEquals(1, carrierA.received(Request.BYE).size());
    }

    @Test
    void callOverTcpToAUdpCarrierIsDoubleRecordRoutedAndHangsUp() throws Exception {
        SipAgent.Call call = tcpCaller.invite(GW, port, "+15551230002");
        Response answer = call.awaitFinal(5000);
        assertNotNull(answer, "no final response over TCP");
        assertEquals(200, answer.getStatusCode());
        Request forwarded = carrierA.received(Request.INVITE).get(0).request();
        assertEquals("UDP", ((ViaHeader) forwarded.getHeader(ViaHeader.NAME)).getTransport().toUpperCase());
        List<String> recordRoutes = new ArrayList<>();
        forwarded.getHeaders(RecordRouteHeader.NAME).forEachRemaining(h -> recordRoutes.add(h.toString().trim()));
        assertEquals(2, recordRoutes.size(), "one Record-Route per transport: " + recordRoutes);
        assertTrue(recordRoutes.get(0).contains("transport=udp") && recordRoutes.get(1).contains("transport=tcp"),
                recordRoutes.toString());

        call.ack();
        assertTrue(carrierA.await(Request.ACK, 1, 2000), "ACK crossed from TCP to UDP");
        Response byeAnswer = call.bye(3000);
        assertNotNull(byeAnswer, "no answer to BYE over TCP");
        assertEquals(200, byeAnswer.getStatusCode());
    }

    @Test
    void overTheLimitGets503WithRetryAfterAndUnderItNothingIsRefused() throws Exception {
        for (int i = 0; i < 3; i++) {
            Response r = tightCaller.invite(GW, port, "+1555000" + i).awaitFinal(5000);
            assertEquals(200, r.getStatusCode(), "call " + i + " is under the limit");
        }
        Response refused = tightCaller.invite(GW, port, "+15550009").awaitFinal(5000);
        assertEquals(503, refused.getStatusCode());
        RetryAfterHeader retryAfter = (RetryAfterHeader) refused.getHeader(RetryAfterHeader.NAME);
        assertNotNull(retryAfter, "Retry-After present");
        assertTrue(retryAfter.getRetryAfter() >= 1 && retryAfter.getRetryAfter() <= 2,
                "Retry-After " + retryAfter.getRetryAfter() + " s for a 2 s window just filled");
        ReasonHeader reason = (ReasonHeader) refused.getHeader(ReasonHeader.NAME);
        assertTrue(reason.getText().contains("peer:tight"), reason.getText());
        assertEquals(3, carrierA.received(Request.INVITE).size(), "the refused call never reached a carrier");
    }

    @Test
    void pacedInvitesArriveAtTheCarrierSpacedByItsRate() throws Exception {
        List<SipAgent.Call> calls = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            calls.add(caller.invite(GW, port, "+2555000" + i));
        }
        for (SipAgent.Call call : calls) {
            Response first = call.next(500);
            assertNotNull(first);
            assertEquals(100, first.getStatusCode(), "100 Trying at once while held");
        }
        for (SipAgent.Call call : calls) {
            assertEquals(200, call.awaitFinal(5000).getStatusCode());
        }
        List<SipAgent.Received> arrivals = slow.received(Request.INVITE);
        assertEquals(8, arrivals.size());
        // The gateway releases them at least 99.5 ms apart on its own clock (bench/sipp-accuracy.sh measures the
        // wire, PacingConformance the release times); here the receiving agent stamps arrivals, and on a busy
        // 2-core machine one stamp can come 100 ms late and the next on time. Unpaced, all 8 arrive within a few
        // ms. So: the span of 7 intervals shows the rate, and no three INVITEs came within one interval (a burst).
        long spanMs = (arrivals.get(7).atNanos() - arrivals.get(0).atNanos()) / 1_000_000;
        assertTrue(spanMs >= 500, "8 INVITEs at 10 cps arrived within " + spanMs + " ms (7 x 100 ms expected)");
        for (int i = 2; i < arrivals.size(); i++) {
            long twoGapsMs = (arrivals.get(i).atNanos() - arrivals.get(i - 2).atNanos()) / 1_000_000;
            assertTrue(twoGapsMs >= 100, "INVITEs " + (i - 2) + " to " + i + " within " + twoGapsMs
                    + " ms at 10 cps (200 ms expected)");
        }
    }

    @Test
    void cancelWhileHeldAnswers487AndTheCarrierNeverSeesTheInvite() throws Exception {
        assertEquals(200, caller.invite(GW, port, "+60001").awaitFinal(5000).getStatusCode());
        SipAgent.Call held = caller.invite(GW, port, "+60002");
        assertEquals(100, held.next(500).getStatusCode());
        held.cancel();
        Response terminated = held.awaitFinal(3000);
        assertEquals(487, terminated.getStatusCode());
        // The call left the pacer before its 487 was sent: no slot can release it any more.
        assertEquals(0, gateway.pacer().heldCount("single"), "the cancelled call is no longer held");
        assertEquals(1, single.received(Request.INVITE).size(), "the cancelled call was never sent");
    }

    @Test
    void unknownSourceGets403() throws Exception {
        assertEquals(403, stranger.invite(GW, port, "+15550000").awaitFinal(3000).getStatusCode());
        assertTrue(carrierA.received(Request.INVITE).isEmpty());
    }

    @Test
    void maxForwardsZeroGets483() throws Exception {
        assertEquals(483, caller.invite(GW, port, "+15550000", 0).awaitFinal(3000).getStatusCode());
    }

    @Test
    void malformedMessageDoesNotDisturbTheNextCall() throws Exception {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getByName("127.0.0.11"))) {
            for (String junk : List.of("INVITE sip:x SIP/2.0\r\nVia: garbage\r\n\r\n", "\u0000\u0001binary\u00ff",
                    "INVITE sip:+1555@127.0.0.1 SIP/2.0\r\nContent-Length: 99999\r\n\r\n")) {
                byte[] bytes = junk.getBytes(StandardCharsets.ISO_8859_1);
                socket.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(GW), port));
            }
        }
        assertEquals(200, caller.invite(GW, port, "+15559999").awaitFinal(5000).getStatusCode());
    }
}
