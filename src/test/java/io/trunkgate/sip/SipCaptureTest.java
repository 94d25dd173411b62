package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.capture.Capture;
import io.trunkgate.config.CaptureSettings;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.HepCollector;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import javax.sip.header.CSeqHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SIP capture through a whole gateway: a call between real JAIN-SIP agents (the caller over UDP or TCP, the carrier
 * over UDP), and at a collector on a UDP
 * socket every message of both legs, received and sent by the gateway, once each, with its addresses, transport,
 * capture id, time and Call-ID.
 */
class SipCaptureTest {

    private static final String GW = "127.0.0.1";
    private static final long CAPTURE_ID = 2001;
    private static final Duration WAIT = Duration.ofSeconds(10);

    @ParameterizedTest(name = "caller over {0}")
    @ValueSource(strings = {"UDP", "TCP"})
    void everyMessageOfACallOnBothLegsReachesTheCollectorOnce(String callerTransport) throws Exception {
        try (SipAgents agents = new SipAgents(); HepCollector collector = new HepCollector()) {
            SipAgent caller = agents.start("127.0.0.11", callerTransport);
            SipAgent carrier = agents.start("127.0.0.21", SipAgent.Behaviour.TRY_RING_ANSWER);
            int port = RedisServerProcess.freePort();
            Duration wait = Duration.ofSeconds(5);
            TestConfigs config = TestConfigs.onSharedRedis("capture", port)
                    .peer("caller", "127.0.0.11", Limit.exact(Duration.ofSeconds(1), 100))
                    .carrier("c", carrier, 100, wait, wait)
                    .route("", "c")
                    .capture(new CaptureSettings(GW, collector.port(), CaptureSettings.Transport.UDP, CAPTURE_ID,
                            Optional.empty(), 1000));
            try (Gateway gateway = Gateway.start(config.build())) {
                long start = Capture.nowMicros();
                SipAgent.Call call = caller.invite(GW, port, "+15550001");
                Response answer = call.awaitFinal(5000);
                assertNotNull(answer, "no answer");
                assertEquals(200, answer.getStatusCode());
                call.ack();
                assertTrue(carrier.await(Request.ACK, 1, 5000), "ACK relayed");
                assertEquals(200, call.bye(5000).getStatusCode());
                long end = Capture.nowMicros();

                // over TCP the caller's end of its connection has a port of its own, not its listener's
                boolean tcp = callerTransport.equals("TCP");
                Function<InetSocketAddress, String> named = address -> address.getAddress().getHostAddress() + ":"
                        + (tcp && address.getAddress().getHostAddress().equals(caller.host()) ? "connection"
                        : String.valueOf(address.getPort()));
                String gateway1 = GW + ":" + port;
                String callerAt = caller.host() + ":" + (tcp ? "connection" : String.valueOf(caller.port()));
                String carrierAt = carrier.host() + ":" + carrier.port();
                List<String> expected = new ArrayList<>();
                for (String method : List.of("INVITE 1", "ACK 1", "BYE 2")) {
                    expected.add(callerAt + " > " + gateway1 + " " + method);
                }
                Set<String> toCaller = new LinkedHashSet<>();
                for (Response response : call.responses()) {
                    toCaller.add(gateway1 + " > " + callerAt + " " + response.getStatusCode() + " "
                            + ((CSeqHeader) response.getHeader(CSeqHeader.NAME)).getSeqNumber());
                }
                expected.addAll(toCaller);
                for (SipAgent.Received received : carrier.receivedIn(call.callId())) {
                    expected.add(gateway1 + " > " + carrierAt + " " + received.request().getMethod() + " "
                            + ((CSeqHeader) received.request().getHeader(CSeqHeader.NAME)).getSeqNumber());
                }
                for (String status : List.of("100 1", "180 1", "200 1", "200 2")) {
                    expected.add(carrierAt + " > " + gateway1 + " " + status);
                }

                List<HepCollector.Packet> packets = collector.await(all -> distinct(all).size() >= expected.size(),
                        WAIT);
                List<HepCollector.Packet> messages = distinct(packets);
                assertEquals(sorted(expected), sorted(messages.stream().map(m -> describe(m, named)).toList()),
                        "one packet per message, on both legs");
                for (HepCollector.Packet packet : messages) {
                    boolean callerLeg = packet.source().getAddress().getHostAddress().equals(caller.host())
                            || packet.destination().getAddress().getHostAddress().equals(caller.host());
                    assertEquals(callerLeg && tcp ? 6 : 17, packet.ipProtocol(), "TCP is 6, UDP 17");
                    assertEquals(CAPTURE_ID, packet.captureId());
                    assertEquals(call.callId(), packet.correlationId());
                    assertTrue(packet.epochMicros() >= start - 1_000 && packet.epochMicros() <= end + 1_000_000,
                            "captured during the call: " + packet.epochMicros());
                }
                // counted once its sending returned, which may be after the collector has it
                assertEquals(packets.size(), Await.until(WAIT, () -> gateway.metrics().countsBy(
                        "trunkgate.capture.messages", "gateway").values().stream().mapToDouble(Double::doubleValue)
                        .sum(), sent -> sent >= packets.size()).intValue());
            }
        }
    }

    /** Each message once: a retransmission (the same bytes again) is the message it repeats. */
    private static List<HepCollector.Packet> distinct(List<HepCollector.Packet> packets) {
        Set<String> seen = new LinkedHashSet<>();
        List<HepCollector.Packet> first = new ArrayList<>();
        for (HepCollector.Packet packet : packets) {
            if (seen.add(packet.source() + packet.payload())) {
                first.add(packet);
            }
        }
        return first;
    }

    /** "source > destination METHOD-or-STATUS CSEQ". */
    private static String describe(HepCollector.Packet packet, Function<InetSocketAddress, String> named) {
        String[] start = packet.startLine().split(" ");
        String what = start[0].startsWith("SIP/") ? start[1] : start[0];
        String cseq = packet.payload().lines().filter(l -> l.regionMatches(true, 0, "CSeq:", 0, 5)).findFirst()
                .map(l -> l.substring(5).trim().split(" ")[0]).orElse("?");
        return named.apply(packet.source()) + " > " + named.apply(packet.destination()) + " " + what + " " + cseq;
    }

    private static List<String> sorted(List<String> lines) {
        return lines.stream().sorted().toList();
    }
}
