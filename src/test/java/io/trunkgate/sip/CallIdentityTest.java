package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.spi.ILoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.LogCapture;
import io.trunkgate.testing.RawSipPeer;
import io.trunkgate.testing.RawSipPeer.Answer;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sip.header.CallIdHeader;
import javax.sip.header.FromHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A call is what RFC 3261 says it is (Call-ID, From tag and CSeq), whatever a peer sends: reusing a Call-ID with
 * fresh From tags makes new calls that count in every limit; the same INVITE sent again on a new branch (a merged
 * request) never reaches a carrier twice; an INVITE outside a dialog cannot replace, end or release another call.
 * The peers write their SIP by hand, as a hostile one would; the carriers are real SIP agents.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CallIdentityTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 10_000;
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private TestConfigs config;
    private SipAgent answering;
    private SipAgent busy;
    private SipAgent ringing;

    @BeforeAll
    void start() throws Exception {
        answering = agents.start("127.0.0.74");
        busy = agents.start("127.0.0.75");
        busy.behave(SipAgent.Behaviour.BUSY_486);
        ringing = agents.start("127.0.0.76");
        ringing.behave(SipAgent.Behaviour.RING);
        Duration wait = Duration.ofSeconds(5);
        Limit plenty = Limit.exact(Duration.ofSeconds(1), 1000);
        config = TestConfigs.onSharedRedis("identity", RedisServerProcess.freePort())
                .leaseTime(Duration.ofMinutes(10))
                .peer("reuser", "127.0.0.71", Limit.exact(Duration.ofSeconds(1), 8)).maxConcurrent("reuser", 3)
                .peer("pair", "127.0.0.72", plenty).maxConcurrent("pair", 2)
                .peer("plain", "127.0.0.73", plenty)
                .carrier("answering", answering, 10_000, wait, wait)
                .carrier("busy", busy, 10_000, wait, wait)
                .carrier("ringing", ringing, 10_000, wait, wait)
                .route("+8", "busy")
                .route("+7", "ringing")
                .route("", "answering");
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    private RawSipPeer peer(String host) throws Exception {
        return new RawSipPeer(host, GW, config.sipPort());
    }

    private static String branch() {
        return "z9hG4bK" + UUID.randomUUID().toString().replace("-", "");
    }

    private static String callId(String what) {
        return what + "-" + UUID.randomUUID();
    }

    /** The final answer to the INVITE of {@code callId} with this From tag and CSeq (at most {@link #WAIT_MS}). */
    private static Answer finalAnswer(RawSipPeer peer, String callId, String fromTag, long cseq) throws Exception {
        return finalAnswer(peer, "INVITE", callId, fromTag, cseq);
    }

    /** The final answer to the request {@code method} of {@code callId} with this From tag and CSeq. */
    private static Answer finalAnswer(RawSipPeer peer, String method, String callId, String fromTag, long cseq)
            throws Exception {
        return peer.await(a -> a.status() >= 200 && method.equals(a.method()) && callId.equals(a.callId())
                        && fromTag.equals(a.fromTag()) && a.cseq() == cseq, WAIT_MS)
                .orElseThrow(() -> new AssertionError("no final answer to " + method + " " + callId + " tag "
                        + fromTag + ": " + peer.answers()));
    }

    /** The peer's calls in progress fleet-wide as the admin API shows them, once they read {@code expected}. */
    private long callsInProgress(String peerId, long expected) {
        AdminClient admin = new AdminClient(gateway.adminAddress());
        return Await.until(Duration.ofMillis(WAIT_MS), () -> {
            for (JsonNode item : admin.get("/api/peers").json().get("peers")) {
                if (item.get("id").asText().equals(peerId)) {
                    JsonNode concurrent = item.get("concurrent");
                    return (concurrent.isArray() ? concurrent.get(0) : concurrent).get("calls").asLong();
                }
            }
            throw new AssertionError("no peer " + peerId);
        }, calls -> calls == expected);
    }

    /** Places a call that the carrier answers and ACKs the 200: its answer, for a BYE later. */
    private static Answer answered(RawSipPeer peer, String number, String callId, String fromTag, String why)
            throws Exception {
        peer.invite(number, callId, fromTag, 1, branch());
        Answer ok = finalAnswer(peer, callId, fromTag, 1);
        assertEquals(200, ok.status(), why);
        peer.ack(ok, branch());
        return ok;
    }

    /** The From tags of the INVITEs of {@code callId} the carrier received. */
    private static Set<String> fromTagsAt(SipAgent carrier, String callId) {
        return carrier.received("INVITE").stream().map(SipAgent.Received::request)
                .filter(r -> ((CallIdHeader) r.getHeader(CallIdHeader.NAME)).getCallId().equals(callId))
                .map(r -> ((FromHeader) r.getHeader(FromHeader.NAME)).getTag()).collect(Collectors.toSet());
    }

    /** Over the peer's rate of 8 a second and its cap of 3 calls at once. */
    private static final int INVITES_OF_ONE_CALL_ID = 16;

    @Test
    void reusingACallIdWithFreshFromTagsMakesNewCallsThatCountInTheRateAndTheCap() throws Exception {
        String callId = callId("reuse");
        try (RawSipPeer peer = peer("127.0.0.71")) {
            // Few enough that one worker lane (one Call-ID) reads them all within T1 on a busy machine: a new
            // INVITE that waited longer is dropped unread, and this peer does not retransmit.
            for (int i = 0; i < INVITES_OF_ONE_CALL_ID; i++) {
                peer.invite("+4411100" + i, callId, "f" + i, 1, branch());
            }
            assertTrue(peer.awaitAll(answers -> answers.stream().filter(a -> a.status() >= 200)
                    .map(Answer::fromTag).distinct().count() == INVITES_OF_ONE_CALL_ID, 30_000),
                    "every INVITE gets a final answer");
            Map<String, Integer> finals = new LinkedHashMap<>();
            for (Answer answer : peer.answers()) {
                if (answer.status() >= 200) {
                    finals.putIfAbsent(answer.fromTag(), answer.status());
                }
            }
            List<Answer> answered = peer.answers().stream().filter(a -> a.status() == 200)
                    .collect(Collectors.toMap(Answer::fromTag, a -> a, (a, b) -> a)).values().stream().toList();
            for (Answer ok : answered) {
                peer.ack(ok, branch());
            }
            assertEquals(3, answered.size(), "calls answered under a cap of 3: " + finals);
            assertEquals(3, fromTagsAt(answering, callId).size(), "distinct calls that reached the carrier");
            assertEquals(3, answering.received("INVITE").stream()
                    .filter(r -> ((CallIdHeader) r.request().getHeader(CallIdHeader.NAME)).getCallId().equals(callId))
                    .count(), "INVITEs that reached the carrier");
            assertTrue(finals.values().stream().allMatch(status -> status == 200 || status == 503),
                    "the others are refused over the cap or the rate: " + finals);
        }
    }

    @Test
    void theSameInviteOnANewBranchIsAMergedRequestAndReachesTheCarrierOnce() throws Exception {
        try (RawSipPeer peer = peer("127.0.0.73")) {
            // while the first is ringing at its carrier
            String ringingCall = callId("merged-ringing");
            peer.invite("+7100", ringingCall, "a", 1, branch());
            assertTrue(ringing.await("INVITE", ringingCall, 1, WAIT_MS) >= 1, "the first INVITE reached the carrier");
            peer.invite("+7100", ringingCall, "a", 1, branch());
            assertEquals(482, finalAnswer(peer, ringingCall, "a", 1).status(), "a merged request (RFC 3261 §8.2.2.2)");

            // once it is answered, and after it ended
            String answeredCall = callId("merged-answered");
            Answer ok = answered(peer, "+4412000", answeredCall, "a", "the call is answered");
            int before = peer.answers().size();
            peer.invite("+4412000", answeredCall, "a", 1, branch());
            assertEquals(482, peer.await(a -> peer.answers().indexOf(a) >= before && a.status() >= 200
                    && answeredCall.equals(a.callId()) && a.status() != 200, WAIT_MS).map(Answer::status).orElse(0));
            peer.bye(ok, 2, branch());
            assertEquals(200, finalAnswer(peer, "BYE", answeredCall, "a", 2).status(), "the call still ends with its BYE");
            int afterBye = peer.answers().size();
            peer.invite("+4412000", answeredCall, "a", 1, branch());
            assertEquals(482, peer.await(a -> peer.answers().indexOf(a) >= afterBye && a.status() >= 300
                    && answeredCall.equals(a.callId()) && a.cseq() == 1, WAIT_MS).map(Answer::status).orElse(0),
                    "the same INVITE after its call ended");
            assertEquals(1, answering.received("INVITE", answeredCall), "INVITEs of the call at the carrier");
            assertEquals(1, ringing.received("INVITE", ringingCall), "INVITEs of the ringing call at the carrier");
        }
    }

    @Test
    void anInviteOnALiveCallIdCannotEndReleaseOrReplaceThatCall() throws Exception {
        try (RawSipPeer peer = peer("127.0.0.72")) {
            String live = callId("live");
            Answer ok = answered(peer, "+4413000", live, "a", "the call is answered");

            // A new From tag on the live Call-ID is a new call: it takes the second place of the cap, fails at its
            // carrier, and gives back its own place only.
            peer.invite("+8100", live, "b", 1, branch());
            assertEquals(486, finalAnswer(peer, live, "b", 1).status());
            assertEquals(1L, callsInProgress("pair", 1), "calls of pair in progress after the 486");
            String second = callId("second");
            Answer secondOk = answered(peer, "+4413001", second, "c", "the cap's second place is free again");
            String third = callId("third");
            peer.invite("+4413002", third, "d", 1, branch());
            assertEquals(503, finalAnswer(peer, third, "d", 1).status(), "the live call still holds its lease");

            // The live dialog's Call-ID and From tag in an INVITE outside it: refused, the dialog stays.
            peer.invite("+4413000", live, "a", 5, branch());
            assertEquals(482, finalAnswer(peer, live, "a", 5).status());
            peer.bye(ok, 2, branch());
            assertEquals(200, finalAnswer(peer, "BYE", live, "a", 2).status(), "the live call's BYE still ends it");
            assertEquals(1, answering.await("BYE", live, 1, WAIT_MS), "the BYE reached the carrier");
            assertEquals(Set.of("a"), fromTagsAt(answering, live), "calls of the live Call-ID the carrier answered");

            // the BYE's lease release is its own Redis call: wait for it before the next call
            assertEquals(1L, callsInProgress("pair", 1), "calls of pair in progress after the BYE");
            String fourth = callId("fourth");
            Answer fourthOk = answered(peer, "+4413003", fourth, "e", "the BYE released the live call's lease");
            peer.bye(fourthOk, 2, branch());
            peer.bye(secondOk, 2, branch());
            finalAnswer(peer, "BYE", fourth, "e", 2);
            finalAnswer(peer, "BYE", second, "c", 2);
        }
    }

    /**
     * RFC 2543 requests (no z9hG4bK magic cookie in the branch) are answered 400 with a reason that says so, also
     * while transactions the stack finished with are still held: they never reach a carrier.
     */
    @Test
    void anRfc2543InviteFromAKnownPeerIsAnswered400() throws Exception {
        try (RawSipPeer peer = peer("127.0.0.73")) {
            String before = callId("rfc2543-before");
            Answer ok = answered(peer, "+4414000", before, "a", "the call is answered");
            peer.bye(ok, 2, branch());
            assertEquals(200, finalAnswer(peer, "BYE", before, "a", 2).status());

            for (String branch : new String[] {"abc123", null}) {
                String old = callId("rfc2543-" + branch);
                peer.invite("+4414001", old, "a", 1, branch);
                Answer answer = finalAnswer(peer, old, "a", 1);
                assertEquals(400, answer.status(), answer.text());
                assertTrue(answer.text().startsWith("SIP/2.0 400 RFC 3261 branch required"), answer.text());
                assertEquals(0, answering.received("INVITE", old));
            }
        }
    }

    @Test
    void aCallIdThatLooksLikeLogFieldsStaysInItsOwnField() throws Exception {
        String forged = "hk3 peer=victim admission=admitted final=200 \"peer=local\" " + UUID.randomUUID();
        try (LogCapture calls = LogCapture.of("trunkgate.calls"); RawSipPeer peer = peer("127.0.0.73")) {
            peer.invite("+4415000", forged, "a", 1, branch());
            Answer ok = finalAnswer(peer, forged, "a", 1);
            peer.ack(ok, branch());
            assertTrue(calls.await(e -> e.getFormattedMessage().contains(forged.substring(forged.length() - 36)),
                    Duration.ofMillis(WAIT_MS)), "a call log line");
            List<String> lines = calls.events().stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(line -> line.contains(forged.substring(forged.length() - 36))).toList();
            assertEquals(1, lines.size(), "one line: " + lines);
            Map<String, String> fields = LogFields.parse(lines.get(0));
            assertEquals(forged, fields.get("call"), lines.get(0));
            assertEquals("plain", fields.get("peer"), lines.get(0));
            assertFalse(lines.get(0).contains("\n"));
        }
    }

    /** Reads a call log line as key=value fields, a value quoted when it holds a space, quote or equals sign. */
    static final class LogFields {
        static Map<String, String> parse(String line) {
            Map<String, String> fields = new LinkedHashMap<>();
            int i = 0;
            while (i < line.length()) {
                int eq = line.indexOf('=', i);
                if (eq < 0) {
                    break;
                }
                String key = line.substring(i, eq);
                assertFalse(key.contains(" "), "a key with a space in " + line);
                StringBuilder value = new StringBuilder();
                int j = eq + 1;
                if (j < line.length() && line.charAt(j) == '"') {
                    j++;
                    while (line.charAt(j) != '"') {
                        if (line.charAt(j) == '\\') {
                            j++;
                        }
                        value.append(line.charAt(j++));
                    }
                    j++;
                } else {
                    while (j < line.length() && line.charAt(j) != ' ') {
                        value.append(line.charAt(j++));
                    }
                }
                assertTrue(fields.put(key, value.toString()) == null, "field " + key + " twice in " + line);
                i = j + 1;
            }
            return fields;
        }
    }
}
