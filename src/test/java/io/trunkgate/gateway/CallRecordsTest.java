package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sip.SipFactory;
import javax.sip.header.ReasonHeader;
import javax.sip.message.Request;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One JSON call record per call at its end in the configured file: the caller's address and numbers, each carrier
 * attempt, the answer and end times, who hung up; the file can be rotated from outside.
 */
class CallRecordsTest {

    private static final long WAIT_MS = 5000;

    @Test
    void answeredRefusedAndStillUpCallsEachGetARecord(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.131");
        SipAgent carrier = SipAgent.start("127.0.0.132");
        int port = RedisServerProcess.freePort();
        String answeredId;
        String answeredTag;
        String refusedId;
        String upId;
        Instant byeSent;
        ReasonHeader refusedReason;
        Instant beforeStart = Instant.now();
        try {
            Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records", port)
                    .instance("records-gw")
                    .callRecords(file)
                    .peer("caller", "127.0.0.131", Limit.exact(Duration.ofMinutes(1), 2))
                    .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                    .route("", "carrier")
                    .build());
            caller.assertIdentity("sip:+4420000@127.0.0.131");
            SipAgent.Call answered = caller.invite("127.0.0.1", port, "+4430");
            caller.assertIdentity(null);
            assertEquals(200, answered.awaitFinal(WAIT_MS).getStatusCode());
            answered.ack();
            SipAgent.Call up = caller.invite("127.0.0.1", port, "+4431");
            assertEquals(200, up.awaitFinal(WAIT_MS).getStatusCode());
            up.ack();
            SipAgent.Call refused = caller.invite("127.0.0.1", port, "+4432");
            javax.sip.message.Response refusal = refused.awaitFinal(WAIT_MS);
            assertEquals(503, refusal.getStatusCode(), "the third call in a minute is over 2/min");
            refusedReason = (ReasonHeader) refusal.getHeader(ReasonHeader.NAME);
            byeSent = Instant.now();
            assertEquals(200, answered.bye(WAIT_MS).getStatusCode());
            answeredId = answered.callId();
            answeredTag = ((javax.sip.header.FromHeader) answered.inviteRequest().getHeader("From")).getTag();
            refusedId = refused.callId();
            upId = up.callId();
            gateway.close();
        } finally {
            caller.close();
            carrier.close();
        }

        ObjectMapper json = new ObjectMapper();
        Map<String, JsonNode> byCall = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            JsonNode record = json.readTree(line);
            assertFalse(byCall.containsKey(record.get("callId").asText()), "one record per call: " + line);
            byCall.put(record.get("callId").asText(), record);
        }
        assertEquals(3, byCall.size(), byCall.toString());

        JsonNode answered = byCall.get(answeredId);
        assertEquals("admitted", answered.get("admission").asText());
        assertEquals("caller", answered.get("peer").asText());
        assertEquals(List.of("carrier"), List.of(answered.get("carriers").get(0).asText()));
        assertEquals(200, answered.get("finalStatus").asInt());
        assertEquals("bye", answered.get("endedBy").asText());
        assertEquals("records-gw", answered.get("gateway").asText());
        // one run of the gateway: the same start in every record, after the test started it and before its calls
        Instant startedAt = Instant.parse(answered.get("gatewayStartedAt").asText());
        assertFalse(startedAt.isBefore(beforeStart), startedAt + " before " + beforeStart);
        assertTrue(startedAt.isBefore(Instant.parse(answered.get("invitedAt").asText())), answered.toString());
        byCall.values().forEach(r -> assertEquals(startedAt.toString(), r.get("gatewayStartedAt").asText(),
                r.toString()));
        Instant invitedAt = Instant.parse(answered.get("invitedAt").asText());
        Instant answeredAt = Instant.parse(answered.get("answeredAt").asText());
        Instant endedAt = Instant.parse(answered.get("endedAt").asText());
        assertTrue(!answeredAt.isBefore(invitedAt) && !endedAt.isBefore(answeredAt), answered.toString());
        assertTrue(!endedAt.isBefore(byeSent), "ended when its BYE was answered, not before: " + answered);
        assertEquals(Duration.between(answeredAt, endedAt).toMillis(), answered.get("durationMs").asLong());
        assertEquals("127.0.0.131:" + caller.port(), answered.get("sourceAddress").asText());
        assertEquals("udp", answered.get("transport").asText());
        assertEquals("caller", answered.get("fromUser").asText());
        assertEquals(answeredTag, answered.get("fromTag").asText(), "the call's identity: Call-ID, From tag, CSeq");
        assertEquals(1, answered.get("cseq").asLong());
        assertEquals("+4430", answered.get("toUser").asText());
        assertEquals("+4430", answered.get("requestUser").asText());
        assertEquals("+4420000", answered.get("paiUser").asText());
        assertEquals("carrier", answered.get("finalCarrier").asText());
        assertEquals("caller", answered.get("hungUpBy").asText());
        assertTrue(answered.get("hangupReason").isNull(), "the BYE had no Reason: " + answered);
        assertTrue(answered.get("reason").isNull(), "the 200 had no Reason: " + answered);
        long setupMs = answered.get("setupMs").asLong();
        assertTrue(answered.get("pddMs").asLong() <= setupMs && setupMs <= Duration.between(invitedAt, answeredAt)
                .toMillis() + 1, answered.toString());
        JsonNode attempt = answered.get("attempts").get(0);
        assertEquals(1, answered.get("attempts").size(), answered.toString());
        assertEquals("carrier", attempt.get("carrier").asText());
        assertEquals("127.0.0.132:" + carrier.port() + "/udp", attempt.get("address").asText());
        assertEquals(200, attempt.get("finalStatus").asInt());
        assertTrue(attempt.get("slotWaitMs").asLong() >= 0, attempt.toString());
        assertTrue(!Instant.parse(attempt.get("sentAt").asText()).isBefore(invitedAt), attempt.toString());
        assertTrue(attempt.get("firstProvisionalMs").asLong() <= attempt.get("answerMs").asLong(), attempt.toString());

        JsonNode refused = byCall.get(refusedId);
        assertEquals("rejected", refused.get("admission").asText());
        assertTrue(refused.get("refusedBy").asText().contains("caller"), refused.toString());
        assertEquals(503, refused.get("finalStatus").asInt());
        assertTrue(refused.get("answeredAt").isNull());
        assertEquals(0, refused.get("durationMs").asLong());
        assertEquals("failed", refused.get("endedBy").asText());
        assertEquals("gateway", refused.get("hungUpBy").asText());
        ReasonHeader recorded = (ReasonHeader) SipFactory.getInstance().createHeaderFactory()
                .createHeader(ReasonHeader.NAME, refused.get("reason").asText());
        assertEquals("SIP", recorded.getProtocol(), refused.toString());
        assertEquals(503, recorded.getCause(), refused.toString());
        assertTrue(refusedReason.getText().contains("caller"), "the wire's Reason names the limit: " + refusedReason);
        assertEquals(refusedReason.getText(), recorded.getText(), "the record's Reason reads as the wire's: "
                + refused.get("reason").asText());
        assertTrue(refused.get("paiUser").isNull(), "no P-Asserted-Identity: " + refused);
        assertEquals(0, refused.get("attempts").size());
        assertTrue(refused.get("finalCarrier").isNull(), refused.toString());

        JsonNode up = byCall.get(upId);
        assertEquals("shutdown", up.get("endedBy").asText(), "a call still up when the gateway stopped");
        assertEquals("gateway", up.get("hungUpBy").asText());
        assertTrue(up.get("durationMs").asLong() >= 0);
    }

    @Test
    void aFailoverCallsRecordHasBothAttemptsAndItsCallLogLineNamesTheCarrierThatAnswered(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.133");
        SipAgent first = SipAgent.start("127.0.0.134");
        SipAgent second = SipAgent.start("127.0.0.135");
        first.behave(SipAgent.Behaviour.REJECT_503);
        second.behave(SipAgent.Behaviour.RING_THEN_ANSWER);
        second.answerAfter(Duration.ofMillis(50));
        int port = RedisServerProcess.freePort();
        String callId;
        try (LogCapture calls = LogCapture.of("trunkgate.calls");
             Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-failover", port)
                     .callRecords(file)
                     .peer("caller", "127.0.0.133", Limit.exact(Duration.ofMinutes(1), 100))
                     .carrier("first", first, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                     .carrier("second", second, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                     .route("", "first", "second")
                     .build())) {
            SipAgent.Call call = caller.invite("127.0.0.1", port, "+4433");
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            call.ack();
            assertEquals(200, second.byeFromCallee(call.callId(), "Q.850;cause=16;text=\"Normal call clearing\"",
                    WAIT_MS).getStatusCode());
            callId = call.callId();
            List<String> lines = calls.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(line -> line.contains("call=" + callId)).toList();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.get(0).contains(" carrier=second "), "the carrier that answered: " + lines.get(0));
        } finally {
            caller.close();
            first.close();
            second.close();
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), lines.toString());
        JsonNode record = new ObjectMapper().readTree(lines.get(0));
        assertEquals(callId, record.get("callId").asText());
        assertEquals("second", record.get("finalCarrier").asText());
        assertEquals("callee", record.get("hungUpBy").asText());
        assertEquals("bye", record.get("endedBy").asText());
        assertEquals("Q.850;cause=16;text=\"Normal call clearing\"", record.get("hangupReason").asText());
        JsonNode attempts = record.get("attempts");
        assertEquals(2, attempts.size(), record.toString());
        assertEquals("first", attempts.get(0).get("carrier").asText());
        assertEquals("127.0.0.134:" + first.port() + "/udp", attempts.get(0).get("address").asText());
        assertEquals(503, attempts.get(0).get("finalStatus").asInt());
        assertTrue(attempts.get(0).get("answerMs").isNull(), record.toString());
        assertEquals("second", attempts.get(1).get("carrier").asText());
        assertEquals(200, attempts.get(1).get("finalStatus").asInt());
        assertTrue(attempts.get(1).get("firstProvisionalMs").asLong() <= attempts.get(1).get("answerMs").asLong(),
                record.toString());
        assertTrue(!Instant.parse(attempts.get(1).get("sentAt").asText())
                .isBefore(Instant.parse(attempts.get(0).get("sentAt").asText())), record.toString());
        assertTrue(record.get("pddMs").asLong() <= record.get("setupMs").asLong(), record.toString());
        assertEquals(List.of("first->second:failure_response(503)"), List.of(record.get("reroutes").get(0).asText()),
                record.toString());
    }

    @Test
    void aCallShedBeforeItWasParsedHasItsSourceTheShedReasonAndTheReasonHeaderButNoNumbers(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.138");
        SipAgent carrier = SipAgent.start("127.0.0.139");
        int port = RedisServerProcess.freePort();
        ManualTime time = new ManualTime();
        String shedId;
        // a burst of 1 and a proxy clock that stands still: the second INVITE is over the new-call rate
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-shed", port)
                .callRecords(file)
                .maxNewCallsPerSecond(1)
                .peer("caller", "127.0.0.138", Limit.exact(Duration.ofMinutes(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build(), time::nanoTime)) {
            SipAgent.Call taken = caller.invite("127.0.0.1", port, "+4436");
            assertEquals(200, taken.awaitFinal(WAIT_MS).getStatusCode());
            taken.ack();
            SipAgent.Call shed = caller.invite("127.0.0.1", port, "+4437");
            assertEquals(503, shed.awaitFinal(WAIT_MS).getStatusCode());
            shedId = shed.callId();
        } finally {
            caller.close();
            carrier.close();
        }
        ObjectMapper json = new ObjectMapper();
        JsonNode record = null;
        for (String line : Files.readAllLines(file)) {
            JsonNode read = json.readTree(line);
            if (read.get("callId").asText().equals(shedId)) {
                record = read;
            }
        }
        assertTrue(record != null, "the shed call's record");
        assertEquals("shed", record.get("admission").asText());
        assertEquals("call_rate", record.get("refusedBy").asText());
        assertEquals("127.0.0.138", record.get("sourceAddress").asText());
        assertTrue(record.get("fromUser").isNull() && record.get("requestUser").isNull(), record.toString());
        assertEquals(503, record.get("finalStatus").asInt());
        assertEquals("SIP;cause=503;text=\"over the gateway's new-call rate\"", record.get("reason").asText());
        assertEquals("gateway", record.get("hungUpBy").asText());
        assertEquals(0, record.get("attempts").size());
    }

    @Test
    void copiesOfAShedInviteAreShedAgainWithoutARecordAlsoOnceNewCallsAreLetIn(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.177");
        SipAgent carrier = SipAgent.start("127.0.0.178");
        int port = RedisServerProcess.freePort();
        ManualTime time = new ManualTime();
        String shedId;
        // a burst of 1 and a proxy clock that stands still until advanced: the second call is over the rate
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-shed-copies", port)
                .callRecords(file)
                .maxNewCallsPerSecond(1)
                .peer("caller", "127.0.0.177", Limit.exact(Duration.ofMinutes(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build(), time::nanoTime);
             DatagramSocket copies = new DatagramSocket(new InetSocketAddress("127.0.0.177", 0))) {
            SipAgent.Call taken = caller.invite("127.0.0.1", port, "+4438");
            assertEquals(200, taken.awaitFinal(WAIT_MS).getStatusCode());
            taken.ack();
            SipAgent.Call shed = caller.invite("127.0.0.1", port, "+4439");
            assertEquals(503, shed.awaitFinal(WAIT_MS).getStatusCode());
            shedId = shed.callId();
            // the caller's retransmissions of the INVITE, still on the way when the 503 left
            byte[] copy = shed.inviteRequest().toString().getBytes(StandardCharsets.UTF_8);
            copies.setSoTimeout((int) WAIT_MS);
            for (int i = 0; i < 3; i++) {
                assertEquals("503 over the gateway's new-call rate", answerTo(copy, copies, port), "copy " + i);
            }
            // the rate lets a call in again: a copy of the shed call is still answered as the call was
            time.advance(Duration.ofSeconds(2));
            assertEquals("503 over the gateway's new-call rate", answerTo(copy, copies, port), "copy after the stall");
            SipAgent.Call next = caller.invite("127.0.0.1", port, "+4440");
            assertEquals(200, next.awaitFinal(WAIT_MS).getStatusCode(), "a new call is let in by then");
            next.ack();
        } finally {
            caller.close();
            carrier.close();
        }
        List<JsonNode> records = recordsOf(file, shedId);
        assertEquals(1, records.size(), records.toString());
        assertEquals("shed", records.get(0).get("admission").asText());
        assertEquals(1, records.get(0).get("cseq").asLong());
        assertEquals(0, carrier.received(Request.INVITE, shedId), "a copy went to the carrier");
    }

    @Test
    void aCopyOfACallRefusedAfterItWasParsedIsAnsweredByItsTransactionNotShedWithARecordOfItsOwn(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent carrier = SipAgent.start("127.0.0.178");
        carrier.behave(SipAgent.Behaviour.BUSY_486);
        int port = RedisServerProcess.freePort();
        ManualTime time = new ManualTime();
        String callId = "refused-then-copied@127.0.0.177";
        // a burst of 1 and a proxy clock that stands still: the refused call took the one new call let in
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-refused-copy", port)
                .callRecords(file)
                .maxNewCallsPerSecond(1)
                .peer("caller", "127.0.0.177", Limit.exact(Duration.ofMinutes(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build(), time::nanoTime);
             DatagramSocket caller = new DatagramSocket(new InetSocketAddress("127.0.0.177", 0))) {
            caller.setSoTimeout((int) WAIT_MS);
            byte[] invite = ("INVITE sip:+4441@127.0.0.1:" + port + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.177:" + caller.getLocalPort() + ";branch=z9hG4bK-refused-copy\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:caller@127.0.0.177>;tag=rc1\r\n"
                    + "To: <sip:+4441@127.0.0.1>\r\nCall-ID: " + callId + "\r\nCSeq: 1 INVITE\r\n"
                    + "Contact: <sip:caller@127.0.0.177:" + caller.getLocalPort() + ">\r\n"
                    + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
            caller.send(new DatagramPacket(invite, invite.length, InetAddress.getByName("127.0.0.1"), port));
            String answer;
            do {
                answer = receiveStatus(caller);
            } while (answer.startsWith("1"));
            assertEquals("486", answer.substring(0, 3), answer);
            // a copy sent before that answer arrived: over the rate, yet not a new call to shed
            assertEquals("486", answerTo(invite, caller, port).substring(0, 3), "the copy's answer");
        } finally {
            carrier.close();
        }
        List<JsonNode> records = recordsOf(file, callId);
        assertEquals(1, records.size(), records.toString());
        assertEquals(486, records.get(0).get("finalStatus").asInt(), records.toString());
    }

    @Test
    void anInviteLetInThatWaitedForAWorkerWhileACopyOfItWasShedIsDroppedNotMadeACall(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.183");
        SipAgent rejecting = SipAgent.start("127.0.0.184");
        SipAgent carrier = SipAgent.start("127.0.0.190");
        rejecting.behave(SipAgent.Behaviour.REJECT_503);
        int port = RedisServerProcess.freePort();
        ManualTime time = new ManualTime();
        // the call loops' clock stands still: however long this machine keeps the INVITE from its held loop, it has
        // not waited past T1 by it, so the loop hands it on to the proxy
        ManualTime loopTime = new ManualTime();
        String callId = "let-in-then-copy-shed@127.0.0.183";
        HoldingHook.entered = new CountDownLatch(1);
        HoldingHook.release = new CountDownLatch(1);
        CountDownLatch loopHeld = new CountDownLatch(1);
        CountDownLatch releaseLoop = new CountDownLatch(1);
        String outcome;
        // a burst of 1 and a proxy clock that stands still until advanced
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-shed-behind", port)
                .callRecords(file)
                .maxNewCallsPerSecond(1)
                .rerouteHook(HoldingHook.class.getName())
                .peer("caller", "127.0.0.183", Limit.exact(Duration.ofMinutes(1), 100))
                .carrier("rejecting", rejecting, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5), "carrier")
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+1", "rejecting")
                .route("+2", "carrier")
                .build(), time::nanoTime, loopTime::nanoTime);
             DatagramSocket socket = readOffTheCallLoop(gateway, callId, port);
             LogCapture transports = LogCapture.of("io.trunkgate.sip.transport")) {
            // another call waits for the reroute hook, which holds no SIP loop
            SipAgent.Call other = caller.invite("127.0.0.1", port, "+15550001");
            assertTrue(HoldingHook.entered.await(WAIT_MS, TimeUnit.MILLISECONDS), "the reroute hook was not called");
            time.advance(Duration.ofSeconds(2));
            // the INVITE's call loop is held: what the triage lets in waits there, unread
            gateway.callLoop(callId).execute(() -> {
                loopHeld.countDown();
                try {
                    releaseLoop.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(loopHeld.await(WAIT_MS, TimeUnit.MILLISECONDS), "the call's loop was not held");
            byte[] invite = ("INVITE sip:+25550001@127.0.0.1:" + port + " SIP/2.0\r\n"
                    + "Via: SIP/2.0/UDP 127.0.0.183:" + socket.getLocalPort() + ";branch=z9hG4bK-shed-behind\r\n"
                    + "Max-Forwards: 70\r\nFrom: <sip:caller@127.0.0.183>;tag=sb1\r\n"
                    + "To: <sip:+25550001@127.0.0.1>\r\nCall-ID: " + callId + "\r\nCSeq: 1 INVITE\r\n"
                    + "Contact: <sip:caller@127.0.0.183:" + socket.getLocalPort() + ">\r\n"
                    + "Content-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
            socket.setSoTimeout((int) WAIT_MS);
            // the INVITE takes the one new call the rate lets in and waits for its held loop; its copy, the
            // caller's retransmission, is over the rate and shed before it is parsed
            socket.send(new DatagramPacket(invite, invite.length, InetAddress.getByName("127.0.0.1"), port));
            assertEquals("503 over the gateway's new-call rate", answerTo(invite, socket, port), "the copy's answer");
            releaseLoop.countDown();
            HoldingHook.release.countDown();
            Callable<String> handled = () -> {
                if (Metrics.value(gateway.metrics().scrape(), "trunkgate_sip_requests_absorbed_total",
                        Map.of("reason", "shed_invite")).orElse(0) > 0) {
                    return "dropped";
                }
                if (carrier.received(Request.INVITE, callId) > 0) {
                    return "sent to the carrier";
                }
                // what the call's loop does to a new INVITE that waited past T1 for it
                return transports.events().stream().map(ILoggingEvent::getFormattedMessage)
                        .anyMatch(line -> line.contains(":" + socket.getLocalPort() + " dropped unread"))
                        ? "stale before its loop" : "";
            };
            outcome = Await.until(Duration.ofMillis(WAIT_MS), handled, seen -> !seen.isEmpty());
            assertEquals(200, other.awaitFinal(WAIT_MS).getStatusCode(), "the other call, rerouted");
            other.ack();
        } finally {
            releaseLoop.countDown();
            HoldingHook.release.countDown();
            caller.close();
            rejecting.close();
            carrier.close();
        }
        assertEquals("dropped", outcome, "the INVITE let in, once parsed");
        List<JsonNode> records = recordsOf(file, callId);
        assertEquals(1, records.size(), records.toString());
        assertEquals("shed", records.get(0).get("admission").asText());
        assertEquals(0, carrier.received(Request.INVITE, callId), "the call went to the carrier");
    }

    /**
     * A socket of the caller's whose datagrams the gateway reads on a loop other than {@code callId}'s: a new call is
     * triaged on the loop that reads its socket, so holding the call's loop must not hold that one. Each UDP socket
     * of the gateway is read by one loop; which one reads a source's datagrams is the kernel's choice. With the
     * call's loop held, an OPTIONS whose Call-ID is handled on another loop is answered only when its source is
     * read by a loop that is not held: the first source answered is one (the stateless answers' budget per source
     * answers five of the eight).
     */
    private static DatagramSocket readOffTheCallLoop(Gateway gateway, String callId, int port) throws Exception {
        Executor held = gateway.callLoop(callId);
        String probeId = callId;
        for (int i = 0; gateway.callLoop(probeId) == held; i++) {
            probeId = "probe-" + i + "@127.0.0.183";
        }
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch holding = new CountDownLatch(1);
        held.execute(() -> {
            holding.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        List<DatagramSocket> sockets = new java.util.ArrayList<>();
        try {
            assertTrue(holding.await(WAIT_MS, TimeUnit.MILLISECONDS), "the call's loop was not held");
            java.nio.channels.Selector selector = java.nio.channels.Selector.open();
            java.util.Map<java.nio.channels.DatagramChannel, DatagramSocket> bySocket = new java.util.HashMap<>();
            for (int i = 0; i < 8; i++) {
                java.nio.channels.DatagramChannel channel = java.nio.channels.DatagramChannel.open();
                channel.bind(new InetSocketAddress("127.0.0.183", 0));
                channel.configureBlocking(false);
                channel.register(selector, java.nio.channels.SelectionKey.OP_READ);
                bySocket.put(channel, channel.socket());
                sockets.add(channel.socket());
                byte[] options = ("OPTIONS sip:127.0.0.1:" + port + " SIP/2.0\r\n"
                        + "Via: SIP/2.0/UDP 127.0.0.183:" + channel.socket().getLocalPort() + ";branch=z9hG4bK-which-" + i
                        + "\r\nMax-Forwards: 70\r\nFrom: <sip:caller@127.0.0.183>;tag=w" + i
                        + "\r\nTo: <sip:127.0.0.1>\r\nCall-ID: " + probeId + "\r\nCSeq: " + (i + 1)
                        + " OPTIONS\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.UTF_8);
                channel.send(java.nio.ByteBuffer.wrap(options), new InetSocketAddress("127.0.0.1", port));
            }
            assertTrue(selector.select(WAIT_MS) > 0, "no source of the eight is read off the held loop");
            java.nio.channels.DatagramChannel answered = (java.nio.channels.DatagramChannel)
                    selector.selectedKeys().iterator().next().channel();
            selector.close();
            answered.configureBlocking(true);
            answered.receive(java.nio.ByteBuffer.allocate(4096));
            DatagramSocket chosen = bySocket.get(answered);
            sockets.remove(chosen);
            return chosen;
        } finally {
            release.countDown();
            for (DatagramSocket other : sockets) {
                other.close();
            }
        }
    }

    /**
     * Holds the thread that calls it until released, returning the chain as configured: a call that waits for its
     * reroute while others go on. Loaded by class name in a test above.
     */
    public static final class HoldingHook implements RerouteHook {
        static volatile CountDownLatch entered = new CountDownLatch(1);
        static volatile CountDownLatch release = new CountDownLatch(1);

        @Override
        public List<String> reroute(RerouteContext context) {
            entered.countDown();
            try {
                release.await(WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return context.remaining();
        }
    }

    /** Sends {@code invite} from {@code socket} and returns the status and Reason text of the first answer. */
    private static String answerTo(byte[] invite, DatagramSocket socket, int port) throws Exception {
        socket.send(new DatagramPacket(invite, invite.length, InetAddress.getByName("127.0.0.1"), port));
        return receiveStatus(socket);
    }

    /**
     * The next response on {@code socket}: its status code, and the text of its Reason header when it has one
     * ("none" when nothing came before the socket's timeout: an answer from a transaction goes to the Via's port).
     */
    private static String receiveStatus(DatagramSocket socket) throws Exception {
        DatagramPacket packet = new DatagramPacket(new byte[4096], 4096);
        try {
            socket.receive(packet);
        } catch (SocketTimeoutException nothing) {
            return "none";
        }
        String response = new String(packet.getData(), 0, packet.getLength(), StandardCharsets.UTF_8);
        String status = response.substring("SIP/2.0 ".length(), "SIP/2.0 ".length() + 3);
        Matcher reason = Pattern.compile("(?im)^Reason:.*text=\"([^\"]*)\"").matcher(response);
        return reason.find() ? status + " " + reason.group(1) : status;
    }

    private static List<JsonNode> recordsOf(Path file, String callId) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> found = new java.util.ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            JsonNode read = json.readTree(line);
            if (read.get("callId").asText().equals(callId)) {
                found.add(read);
            }
        }
        return found;
    }

    @Test
    void afterTheFileIsMovedAwayAndReopenedRecordsGoToANewFileAtItsPath(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        Path rotated = dir.resolve("calls.jsonl.1");
        SipAgent caller = SipAgent.start("127.0.0.136");
        SipAgent carrier = SipAgent.start("127.0.0.137");
        carrier.behave(SipAgent.Behaviour.REJECT_503);
        int port = RedisServerProcess.freePort();
        String before;
        String after;
        try (Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records-rotated", port)
                .callRecords(file)
                .peer("caller", "127.0.0.136", Limit.exact(Duration.ofMinutes(1), 100))
                .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("", "carrier")
                .build())) {
            SipAgent.Call first = caller.invite("127.0.0.1", port, "+4434");
            assertEquals(503, first.awaitFinal(WAIT_MS).getStatusCode());
            before = first.callId();
            // what logrotate does: move the file, then tell the gateway (SIGHUP in the run command)
            Files.move(file, rotated);
            gateway.reopenRecords();
            SipAgent.Call second = caller.invite("127.0.0.1", port, "+4435");
            assertEquals(503, second.awaitFinal(WAIT_MS).getStatusCode());
            after = second.callId();
        } finally {
            caller.close();
            carrier.close();
        }
        ObjectMapper json = new ObjectMapper();
        List<String> old = Files.readAllLines(rotated);
        assertEquals(1, old.size(), old.toString());
        assertEquals(before, json.readTree(old.get(0)).get("callId").asText());
        List<String> current = Files.readAllLines(file);
        assertEquals(1, current.size(), current.toString());
        assertEquals(after, json.readTree(current.get(0)).get("callId").asText());
    }
}
