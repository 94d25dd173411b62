package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import javax.sip.address.SipURI;
import javax.sip.header.CSeqHeader;
import javax.sip.header.FromHeader;
import javax.sip.header.ToHeader;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calls in progress through the admin API, with real SIP agents: GET /api/calls lists them (by peer, carrier,
 * number), POST /api/calls/{id}/hangup ends one (a BYE to each end of an answered call, a CANCEL and 487 for one
 * ringing; its leases released, its record saying an operator ended it), and POST /api/resume ends a drain.
 */
class LiveCallsTest {

    private static final String TOKEN = "live-calls-token";
    private static final long WAIT_MS = 5000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private Path records;
    private SipAgent callerA;
    private SipAgent callerB;
    private SipAgent carrierX;
    private SipAgent carrierY;
    private Gateway gateway;
    private AdminClient admin;
    private int port;

    @BeforeEach
    void start() throws Exception {
        callerA = SipAgent.start("127.0.0.232");
        callerB = SipAgent.start("127.0.0.233");
        carrierX = SipAgent.start("127.0.0.234");
        carrierY = SipAgent.start("127.0.0.235");
        port = RedisServerProcess.freePort();
        records = dir.resolve("calls.jsonl");
        gateway = Gateway.start(TestConfigs.onSharedRedis("live-calls", port)
                .instance("live-calls-gw-" + UUID.randomUUID())
                .drainTimeout(Duration.ofSeconds(60))
                .adminToken(TOKEN)
                .callRecords(records)
                .peer("a", "127.0.0.232", Limit.exact(Duration.ofSeconds(1), 1000))
                .maxConcurrent("a", 2)
                .peer("b", "127.0.0.233", Limit.exact(Duration.ofSeconds(1), 1000))
                .peer("natted", "127.0.0.236", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("x", carrierX, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .carrier("y", carrierY, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                .route("+441", "x")
                .route("+442", "y")
                .build());
        admin = new AdminClient(gateway.adminAddress());
    }

    @AfterEach
    void stop() {
        gateway.endDrain();
        gateway.close();
        callerA.close();
        callerB.close();
        carrierX.close();
        carrierY.close();
    }

    private SipAgent.Call connect(SipAgent caller, String number) throws Exception {
        SipAgent.Call call = caller.invite("127.0.0.1", port, number);
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no answer to " + number);
        assertEquals(200, answer.getStatusCode());
        call.ack();
        return call;
    }

    private List<JsonNode> calls(String query) throws Exception {
        AdminClient.Answer answer = admin.get("/api/calls" + query);
        assertEquals(200, answer.status(), answer.body());
        return StreamSupport.stream(answer.json().path("calls").spliterator(), false).toList();
    }

    private JsonNode byNumber(String number) throws Exception {
        List<JsonNode> found = calls("?number=" + java.net.URLEncoder.encode(number, "UTF-8"));
        assertEquals(1, found.size(), found.toString());
        return found.get(0);
    }

    private static Request bye(SipAgent agent, String callId) {
        return agent.receivedIn(callId).stream().map(SipAgent.Received::request)
                .filter(r -> r.getMethod().equals(Request.BYE)).findFirst().orElseThrow();
    }

    private List<JsonNode> recordsOf(String callId) throws Exception {
        List<JsonNode> found = new ArrayList<>();
        if (!Files.exists(records)) {
            return found;
        }
        for (String line : Files.readAllLines(records)) {
            JsonNode record = JSON.readTree(line);
            if (record.path("callId").asText().equals(callId)) {
                found.add(record);
            }
        }
        return found;
    }

    @Test
    void listsTheCallsInProgressFilteredByPeerCarrierAndNumber() throws Exception {
        connect(callerA, "+4411");
        connect(callerA, "+4421");
        connect(callerB, "+4422");

        List<JsonNode> all = calls("");
        assertEquals(3, all.size(), all.toString());
        assertEquals(2, calls("?peer=a").size());
        assertEquals(2, calls("?carrier=y").size());
        assertEquals(1, calls("?peer=a&carrier=y").size());
        assertEquals(0, calls("?peer=nobody").size());

        JsonNode b = byNumber("+4422");
        assertEquals("b", b.path("peer").asText(), b.toString());
        assertEquals("y", b.path("carrier").asText(), b.toString());
        assertEquals("caller", b.path("caller").asText(), b.toString());
        assertEquals("+4422", b.path("callee").asText(), b.toString());
        assertEquals("answered", b.path("phase").asText(), b.toString());
        assertFalse(b.path("startedAt").asText().isEmpty(), b.toString());
        assertFalse(b.path("answeredAt").asText().isEmpty(), b.toString());
        assertFalse(b.path("id").asText().isEmpty(), b.toString());
        // the calling number filters too: every call here is from "caller"
        assertEquals(3, calls("?number=caller").size());
    }

    @Test
    void hangupSendsAByeToBothEndsReleasesTheLeasesAndRecordsTheOperator() throws Exception {
        SipAgent.Call first = connect(callerA, "+4411");
        assertEquals(200, first.reinvite(WAIT_MS).getStatusCode());
        connect(callerA, "+4412");
        // peer a's max-concurrent 2 is full: a third call is refused while both are up
        Response full = callerA.invite("127.0.0.1", port, "+4413").awaitFinal(WAIT_MS);
        assertNotNull(full);
        assertTrue(full.getStatusCode() >= 400, "a third call over max-concurrent 2 got " + full.getStatusCode());

        String id = byNumber("+4411").path("id").asText();
        assertEquals(401, admin.send("POST", "/api/calls/" + id + "/hangup", "", null).status(),
                "a hangup needs the token");
        AdminClient.Answer hungUp = admin.send("POST", "/api/calls/" + id + "/hangup", "", TOKEN);
        assertEquals(200, hungUp.status(), hungUp.body());

        assertEquals(1, callerA.await("BYE", first.callId(), 1, WAIT_MS), "the caller got no BYE");
        assertEquals(1, carrierX.await("BYE", first.callId(), 1, WAIT_MS), "the callee got no BYE");
        // each BYE is one its end takes as in its dialog: the tags, the end's Contact, a CSeq above the other's
        String callerTag = ((FromHeader) first.inviteRequest().getHeader(FromHeader.NAME)).getTag();
        String calleeTag = ((ToHeader) first.responses().stream().filter(r -> r.getStatusCode() == 200).findFirst()
                .orElseThrow().getHeader(ToHeader.NAME)).getTag();
        Request toCallee = bye(carrierX, first.callId());
        assertEquals(callerTag, ((FromHeader) toCallee.getHeader(FromHeader.NAME)).getTag());
        assertEquals(calleeTag, ((ToHeader) toCallee.getHeader(ToHeader.NAME)).getTag());
        assertEquals(3, ((CSeqHeader) toCallee.getHeader(CSeqHeader.NAME)).getSeqNumber(),
                "above the caller's re-INVITE (CSeq 2)");
        assertEquals("carrier", ((SipURI) toCallee.getRequestURI()).getUser(), "aimed at the callee's Contact");
        Request toCaller = bye(callerA, first.callId());
        assertEquals(calleeTag, ((FromHeader) toCaller.getHeader(FromHeader.NAME)).getTag());
        assertEquals(callerTag, ((ToHeader) toCaller.getHeader(ToHeader.NAME)).getTag());
        assertEquals("caller", ((SipURI) toCaller.getRequestURI()).getUser(), "aimed at the caller's Contact");
        JsonNode record = Await.until(Duration.ofMillis(WAIT_MS), () -> recordsOf(first.callId()),
                found -> !found.isEmpty()).get(0);
        assertEquals("operator", record.path("endedBy").asText(), record.toString());
        assertEquals("operator", record.path("hungUpBy").asText(), record.toString());
        assertEquals(200, record.path("finalStatus").asInt(), record.toString());
        assertTrue(calls("?number=%2B4411").isEmpty(), "a call hung up is still listed");
        assertEquals(404, admin.send("POST", "/api/calls/" + id + "/hangup", "", TOKEN).status(),
                "a call already ended is not found");

        // its lease was released: a new call of peer a fits under max-concurrent 2 again
        connect(callerA, "+4414");
    }

    @Test
    void aTcpCallerWhoseContactCannotBeReachedGetsTheOperatorsByeOnItsOwnConnection() throws Exception {
        SipAgent natted = SipAgent.start("127.0.0.236", "TCP");
        try {
            // a Contact port nobody listens on, as a caller behind NAT names its private address
            natted.advertiseContactPort(RedisServerProcess.freePort());
            SipAgent.Call call = connect(natted, "+4415");
            String id = calls("?peer=natted").get(0).path("id").asText();
            assertEquals(200, admin.send("POST", "/api/calls/" + id + "/hangup", "", TOKEN).status());
            assertEquals(1, natted.await("BYE", call.callId(), 1, WAIT_MS), "the caller got no BYE");
            assertEquals(1, carrierX.await("BYE", call.callId(), 1, WAIT_MS), "the callee got no BYE");
        } finally {
            natted.close();
        }
    }

    @Test
    void hangupOfARingingCallCancelsItAtTheCarrierAndAnswersTheCaller487() throws Exception {
        carrierY.behave(SipAgent.Behaviour.RING);
        SipAgent.Call ringing = callerB.invite("127.0.0.1", port, "+4429");
        JsonNode listed = Await.until(Duration.ofMillis(WAIT_MS), () -> calls("?peer=b"),
                found -> found.size() == 1 && found.get(0).path("phase").asText().equals("ringing")).get(0);
        assertTrue(listed.path("answeredAt").isMissingNode(), listed.toString());

        AdminClient.Answer hungUp = admin.send("POST", "/api/calls/" + listed.path("id").asText() + "/hangup", "",
                TOKEN);
        assertEquals(200, hungUp.status(), hungUp.body());
        Response answer = ringing.awaitFinal(WAIT_MS);
        assertNotNull(answer, "the caller got no final answer");
        assertEquals(487, answer.getStatusCode());
        assertEquals(1, carrierY.await("CANCEL", ringing.callId(), 1, WAIT_MS), "the carrier got no CANCEL");
        JsonNode record = Await.until(Duration.ofMillis(WAIT_MS), () -> recordsOf(ringing.callId()),
                found -> !found.isEmpty()).get(0);
        assertEquals("failed", record.path("endedBy").asText(), record.toString());
        assertEquals("operator", record.path("hungUpBy").asText(), record.toString());
    }

    @Test
    void hangupOfAnUnknownCallIs404() throws Exception {
        AdminClient.Answer unknown = admin.send("POST", "/api/calls/bm8tc3VjaC1jYWxsCnRhZw/hangup", "", TOKEN);
        assertEquals(404, unknown.status(), unknown.body());
        assertTrue(unknown.json().path("error").asText().contains("no call in progress"), unknown.body());
        assertEquals(404, admin.send("POST", "/api/calls/not-base64!/hangup", "", TOKEN).status());
        assertEquals(401, admin.send("POST", "/api/calls/bm8tc3VjaC1jYWxsCnRhZw/hangup", "", "wrong").status());
    }

    @Test
    void resumeEndsADrainNewCallsConnectAgain() throws Exception {
        SipAgent.Call up = connect(callerA, "+4411");
        assertEquals(202, admin.send("POST", "/api/drain", "", TOKEN).status());
        assertEquals(503, admin.get("/health").status());
        assertEquals(503, callerA.invite("127.0.0.1", port, "+4412").awaitFinal(WAIT_MS).getStatusCode());

        assertEquals(401, admin.send("POST", "/api/resume", "", null).status(), "resume needs the token");
        AdminClient.Answer resumed = admin.send("POST", "/api/resume", "", TOKEN);
        assertEquals(200, resumed.status(), resumed.body());
        assertEquals("ready", resumed.json().path("status").asText(), resumed.body());
        AdminClient.Answer health = admin.get("/health");
        assertEquals(200, health.status(), health.body());
        assertEquals("ok", health.json().path("status").asText(), health.body());
        connect(callerB, "+4421");
        assertEquals(200, up.bye(WAIT_MS).getStatusCode(), "the call up through the drain ends normally");

        // a second drain after the resume refuses new calls again
        assertEquals(202, admin.send("POST", "/api/drain", "", TOKEN).status());
        assertEquals(503, callerB.invite("127.0.0.1", port, "+4422").awaitFinal(WAIT_MS).getStatusCode());
    }

    @Test
    void aStoppingGatewaysDrainIsNotResumed() throws Exception {
        connect(callerA, "+4411");
        CompletableFuture<Void> closed = CompletableFuture.runAsync(gateway::close);
        Await.until(Duration.ofMillis(WAIT_MS), () -> admin.get("/health"),
                health -> health.json().path("status").asText().equals("draining"));

        AdminClient.Answer refused = admin.send("POST", "/api/resume", "", TOKEN);
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.json().path("error").asText().contains("stopping"), refused.body());
        assertEquals(503, admin.get("/health").status(), "a stopping gateway stays draining");

        assertFalse(closed.isDone(), "the gateway stopped while its call was up");
        gateway.endDrain(); // a second SIGTERM
        closed.get(30, TimeUnit.SECONDS);
    }
}
