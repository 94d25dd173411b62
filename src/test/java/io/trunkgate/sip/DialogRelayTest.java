package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.config.SipLimits;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import io.trunkgate.testing.ThirdHost;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * In-dialog requests through the gateway, from callers on UDP and on TCP (carriers on UDP): the requests of a dialog the gateway admitted
 * (ACK, re-INVITE, BYE from either side, and those of a caller that ignores Record-Route, as SIPp's built-in
 * one does) pass; a party aiming its dialog at a third host, and a stranger using a known dialog's Call-ID
 * and tags, are refused and nothing reaches anyone.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DialogRelayTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 5000;

    private Gateway gateway;
    private int port;
    private SipAgent udpCaller;
    private SipAgent tcpCaller;
    private SipAgent carrier;
    private ThirdHost third;
    private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

    @BeforeAll
    void start() throws Exception {
        udpCaller = SipAgent.start("127.0.0.71", "UDP");
        tcpCaller = SipAgent.start("127.0.0.72", "TCP");
        carrier = SipAgent.start("127.0.0.73", "UDP");
        third = ThirdHost.start("127.0.0.75");
        port = RedisServerProcess.freePort();
        gateway = Gateway.start(TestConfigs.onSharedRedis("dialog", port)
                .peer("udp-peer", "127.0.0.71", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("tcp-peer", "127.0.0.72", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("natted-peer", "127.0.0.76", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("+1", "carrier")
                .build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        Stream.of(udpCaller, tcpCaller, carrier).parallel().forEach(SipAgent::close);
        third.close();
    }

    private SipAgent caller(String transport) {
        return transport.equals("UDP") ? udpCaller : tcpCaller;
    }

    private SipAgent.Call connect(String transport) throws Exception {
        String number = "+1" + (1_000_000 + calls.incrementAndGet());
        SipAgent.Call call = caller(transport).invite(GW, port, number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "the call got no answer");
        assertEquals(200, answer.getStatusCode());
        call.ack();
        return call;
    }

    private void awaitReceived(SipAgent agent, String method, String callId, long count) throws InterruptedException {
        assertEquals(count, agent.await(method, callId, count, WAIT_MS), method + "s of call " + callId + " at "
                + agent.host());
    }

    @ParameterizedTest
    @ValueSource(strings = {"UDP", "TCP"})
    void ackReinviteAndByeOfAnAdmittedDialogPass(String transport) throws Exception {
        SipAgent.Call call = connect(transport);
        awaitReceived(carrier, Request.ACK, call.callId(), 1);
        Response reinvite = call.reinvite(WAIT_MS);
        assertNotNull(reinvite, "no answer to the re-INVITE");
        assertEquals(200, reinvite.getStatusCode());
        awaitReceived(carrier, Request.INVITE, call.callId(), 2);
        awaitReceived(carrier, Request.ACK, call.callId(), 2);
        Response bye = call.bye(WAIT_MS);
        assertNotNull(bye, "no answer to the BYE");
        assertEquals(200, bye.getStatusCode());
        awaitReceived(carrier, Request.BYE, call.callId(), 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"UDP", "TCP"})
    void theCalleeHangsUpThroughTheGateway(String transport) throws Exception {
        SipAgent.Call call = connect(transport);
        Response bye = carrier.byeFromCallee(call.callId(), WAIT_MS);
        assertNotNull(bye, "no answer to the callee's BYE");
        assertEquals(200, bye.getStatusCode());
        awaitReceived(caller(transport), Request.BYE, call.callId(), 1);
    }

    @Test
    void aTcpCallerWhoseContactCannotBeReachedGetsTheCalleesByeOnItsOwnConnection() throws Exception {
        SipAgent natted = SipAgent.start("127.0.0.76", "TCP");
        try {
            // A Contact port nobody listens on, as a caller behind NAT names its private address.
            natted.advertiseContactPort(RedisServerProcess.freePort());
            SipAgent.Call call = natted.invite(GW, port, "+1" + (1_000_000 + calls.incrementAndGet()));
            Response answer = call.awaitFinal(WAIT_MS);
            assertNotNull(answer, "the call got no answer");
            assertEquals(200, answer.getStatusCode());
            call.ack();
            Response bye = carrier.byeFromCallee(call.callId(), WAIT_MS);
            assertNotNull(bye, "no answer to the callee's BYE");
            assertEquals(200, bye.getStatusCode());
            awaitReceived(natted, Request.BYE, call.callId(), 1);
        } finally {
            natted.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"UDP", "TCP"})
    void aCallerThatIgnoresRecordRouteStillReachesTheCarrier(String transport) throws Exception {
        SipAgent.Call call = connect(transport);
        call.withoutRouteSet(Request.ACK, WAIT_MS);
        awaitReceived(carrier, Request.ACK, call.callId(), 2);
        Response bye = call.withoutRouteSet(Request.BYE, WAIT_MS);
        assertNotNull(bye, "no answer to the BYE sent to the gateway's address");
        assertEquals(200, bye.getStatusCode());
        awaitReceived(carrier, Request.BYE, call.callId(), 1);
    }

    @ParameterizedTest
    @ValueSource(strings = {"UDP", "TCP"})
    void aPartyCannotAimItsDialogAtAThirdHost(String transport) throws Exception {
        SipAgent.Call call = connect(transport);
        String elsewhere = "sip:victim@" + third.address() + ";transport=" + transport.toLowerCase();
        Response info = call.aimedAt(Request.INFO, elsewhere, WAIT_MS);
        assertNotNull(info, "no answer to an INFO aimed at a third host");
        assertEquals(403, info.getStatusCode());
        Response bye = call.bye(WAIT_MS);
        assertNotNull(bye, "no answer to the BYE");
        assertEquals(200, bye.getStatusCode(), "the dialog itself still works");
        Response afterBye = call.bye(WAIT_MS);
        assertNotNull(afterBye, "no answer to a BYE after the dialog ended");
        assertEquals(481, afterBye.getStatusCode(), "an ended dialog is forgotten");
        assertEquals(0, third.received(), "messages that reached the third host");
    }

    /** The dialog table is bounded: when it is full new calls get 503 at once, and an ended call frees a place. */
    @Test
    void aFullDialogTableShedsNewCallsUntilOneEnds() throws Exception {
        int smallPort = RedisServerProcess.freePort();
        try (Gateway small = Gateway.start(TestConfigs.onSharedRedis("dialogs", smallPort)
                .instance("small-gw")
                .sipLimits(new SipLimits(16 * 1024, 16, Duration.ofHours(1), Duration.ZERO, 2, SipLimits.DEFAULT_LINGER))
                .peer("udp-peer", "127.0.0.71", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(2), Duration.ofSeconds(5))
                .route("+1", "carrier")
                .build())) {
            List<SipAgent.Call> up = new java.util.ArrayList<>();
            for (int i = 0; i < 2; i++) {
                SipAgent.Call call = udpCaller.invite(GW, smallPort, "+1900000" + i);
                assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
                call.ack();
                up.add(call);
            }
            Response third = udpCaller.invite(GW, smallPort, "+19000002").awaitFinal(WAIT_MS);
            assertNotNull(third, "no answer to a call past the dialog cap");
            assertEquals(503, third.getStatusCode());
            assertTrue(third.getHeader("Reason").toString().contains("too many dialogs"), third.toString());
            assertEquals(200, up.get(0).bye(WAIT_MS).getStatusCode());
            Response next = udpCaller.invite(GW, smallPort, "+19000003").awaitFinal(WAIT_MS);
            assertNotNull(next, "no answer after a dialog ended");
            assertEquals(200, next.getStatusCode());
        }
    }

    @Test
    void aStrangerCannotUseAKnownDialog() throws Exception {
        SipAgent.Call call = connect("UDP");
        Response answer = call.responses().stream().filter(r -> r.getStatusCode() == 200).findFirst().orElseThrow();
        String callId = call.callId();
        String callerTag = ((FromHeader) answer.getHeader(FromHeader.NAME)).getTag();
        String calleeTag = ((ToHeader) answer.getHeader(ToHeader.NAME)).getTag();
        try (DatagramSocket stranger = new DatagramSocket(0, InetAddress.getByName("127.0.0.76"))) {
            stranger.setSoTimeout((int) WAIT_MS);
            String byeAsCaller = "BYE sip:carrier@" + carrier.host() + ":" + carrier.port() + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.76:" + stranger.getLocalPort() + ";branch=z9hG4bKstranger1\r\n"
                    + "Route: <sip:" + GW + ":" + port + ";lr>\r\nMax-Forwards: 70\r\n"
                    + "From: <sip:caller@127.0.0.71>;tag=" + callerTag + "\r\nTo: <sip:x@" + GW + ">;tag=" + calleeTag
                    + "\r\nCall-ID: " + callId + "\r\nCSeq: 9 BYE\r\nContent-Length: 0\r\n\r\n";
            byte[] bytes = byeAsCaller.getBytes(StandardCharsets.US_ASCII);
            stranger.send(new DatagramPacket(bytes, bytes.length, InetAddress.getByName(GW), port));
            byte[] buffer = new byte[4096];
            DatagramPacket reply = new DatagramPacket(buffer, buffer.length);
            stranger.receive(reply);
            String text = new String(reply.getData(), 0, reply.getLength(), StandardCharsets.US_ASCII);
            assertTrue(text.startsWith("SIP/2.0 403"), "a stranger's BYE in a known dialog (it exists: not 481): " + text.lines().findFirst());
        }
        Response bye = call.bye(WAIT_MS);
        assertNotNull(bye, "no answer to the caller's own BYE");
        assertEquals(200, bye.getStatusCode(), "the call was still up after the stranger's BYE");
        assertEquals(1, carrier.received(Request.BYE, callId), "BYEs the carrier got: only the caller's");
    }
}
