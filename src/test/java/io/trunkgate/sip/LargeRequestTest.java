package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import javax.sip.header.ContentTypeHeader;
import javax.sip.header.ViaHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * RFC 3261 §18.1.1 towards carriers, with real agents: a 4.7 KB INVITE (a long SDP offer, as video and many codecs
 * make) goes to a carrier that takes TCP over TCP, and the call connects and ends; an INVITE of ordinary size still
 * goes over UDP; a carrier whose URI says {@code transport=udp} gets the big INVITE over UDP, and the log warns once
 * for that carrier however many such INVITEs go.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LargeRequestTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 15_000;

    private SipAgent caller;
    private SipAgent takesTcp;
    private SipAgent udpOnly;
    private Gateway gateway;
    private TestConfigs config;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.251");
        takesTcp = SipAgent.startUdpAndTcp("127.0.0.252");
        udpOnly = SipAgent.start("127.0.0.253");
        Duration wait = Duration.ofSeconds(5);
        config = TestConfigs.onSharedRedis("large-requests", RedisServerProcess.freePort())
                .peer("caller", "127.0.0.251", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("tcp-too", "sip:127.0.0.252:" + takesTcp.port(), 1000, wait, Duration.ofSeconds(5))
                .carrier("udp-only", udpOnly, 1000, wait, Duration.ofSeconds(5))
                .route("+1", "tcp-too").route("+2", "udp-only");
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        List.of(caller, takesTcp, udpOnly).forEach(SipAgent::close);
    }

    /** An SDP offer of about {@code bytes} bytes: many a=rtpmap lines, as a video offer with many codecs has. */
    private static Consumer<Request> offer(int bytes) {
        return invite -> {
            StringBuilder sdp = new StringBuilder("v=0\r\no=- 1 1 IN IP4 127.0.0.251\r\ns=-\r\nc=IN IP4 127.0.0.251\r\n"
                    + "t=0 0\r\nm=audio 40000 RTP/AVP 0\r\n");
            for (int i = 0; sdp.length() < bytes; i++) {
                sdp.append("a=fmtp:").append(96 + i % 30).append(" profile-level-id=42e01f;packetization-mode=1;")
                        .append("max-mbps=").append(100_000 + i).append("\r\n");
            }
            try {
                invite.setContent(sdp.toString().getBytes(StandardCharsets.UTF_8),
                        (ContentTypeHeader) io.trunkgate.sip.jainsip.JainSip.factory().createHeaderFactory()
                                .createContentTypeHeader("application", "sdp"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    /** The transport the INVITE of {@code callId} reached {@code carrier} over: the top Via the gateway's stack wrote. */
    private static String arrivedOver(SipAgent carrier, String callId) {
        List<SipAgent.Received> invites = carrier.receivedIn(callId).stream()
                .filter(r -> r.request().getMethod().equals(Request.INVITE)).toList();
        assertEquals(1, invites.size(), "one INVITE reached the carrier");
        return ((ViaHeader) invites.get(0).request().getHeader(ViaHeader.NAME)).getTransport().toUpperCase();
    }

    @Test
    void aBigInviteGoesToACarrierThatTakesTcpOverTcpAndTheCallConnectsAndEnds() throws Exception {
        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+1555001", offer(4_500));
        assertTrue(call.inviteRequest().toString().length() > 4_700, "the caller's INVITE is over 4.7 KB");
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals("TCP", arrivedOver(takesTcp, call.callId()));
        call.ack();
        assertEquals(200, call.bye(WAIT_MS).getStatusCode(), "the BYE reaches the carrier and its 200 comes back");
        assertEquals(1, takesTcp.received(Request.BYE, call.callId()));
    }

    @Test
    void anInviteOfOrdinarySizeStillGoesOverUdp() throws Exception {
        SipAgent.Call call = caller.invite(GW, config.sipPort(), "+1555002", offer(300));
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals("UDP", arrivedOver(takesTcp, call.callId()));
        call.ack();
        assertEquals(200, call.bye(WAIT_MS).getStatusCode());
    }

    @Test
    void aCarrierWhoseUriSaysUdpGetsTheBigInviteOverUdpWithOneWarning() throws Exception {
        try (LogCapture log = LogCapture.of(UdpSizeRule.class)) {
            for (int i = 0; i < 2; i++) {
                SipAgent.Call call = caller.invite(GW, config.sipPort(), "+255500" + i, offer(4_500));
                assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
                assertEquals("UDP", arrivedOver(udpOnly, call.callId()));
                call.ack();
                assertEquals(200, call.bye(WAIT_MS).getStatusCode());
            }
            List<String> warnings = log.events().stream().filter(e -> e.getLevel() == Level.WARN)
                    .map(e -> e.getFormattedMessage()).toList();
            assertEquals(1, warnings.size(), warnings.toString());
            assertTrue(warnings.get(0).contains("carrier udp-only") && warnings.get(0).contains("transport=udp"),
                    warnings.get(0));
        }
    }
}
