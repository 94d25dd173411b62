package io.trunkgate.sip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.RedisAdmin;
import io.trunkgate.testing.ScriptClock;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.StandaloneRedis;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.sip.message.Request;
import javax.sip.message.Response;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * One call across a challenge, with real agents: a carrier answers every INVITE without credentials 407, the caller
 * sends it again with them (same Call-ID and From tag, the next CSeq), and that retry is the same call: counted once
 * in its peer's windows, with one record whose attempts are the challenge and the answer. A retry with no challenge
 * before it is a call of its own, as it always was. The peers' windows run on a frozen script clock, so every
 * admission of a test lands in one instant of its window however slowly the machine runs.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ChallengedCallsTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 15_000;

    @TempDir
    static Path dir;
    private SipAgent caller;
    private SipAgent otherCaller;
    private SipAgent challenging;
    private SipAgent busy;
    private Gateway gateway;
    private TestConfigs config;
    private Path records;

    @BeforeAll
    void start() throws Exception {
        caller = SipAgent.start("127.0.0.243");
        otherCaller = SipAgent.start("127.0.0.244");
        challenging = SipAgent.start("127.0.0.245");
        challenging.behave(SipAgent.Behaviour.CHALLENGE_407);
        busy = SipAgent.start("127.0.0.246");
        busy.behave(SipAgent.Behaviour.BUSY_486);
        records = dir.resolve("calls.jsonl");
        Duration wait = Duration.ofSeconds(5);
        config = TestConfigs.onSharedRedis("challenged", RedisServerProcess.freePort())
                .peer("acme", "127.0.0.243", Limit.exact(Duration.ofSeconds(1), 5))
                .peer("initech", "127.0.0.244", Limit.exact(Duration.ofSeconds(1), 100))
                .carrier("auth", challenging, 1000, wait, Duration.ofSeconds(5))
                .carrier("busy", busy, 1000, wait, Duration.ofSeconds(5))
                .route("+1", "auth").route("+2", "busy")
                .callRecords(records);
        String prefix = config.build().redis().keyPrefix();
        try (RedisAdmin redis = new RedisAdmin(StandaloneRedis.shared().server().port())) {
            for (String peer : List.of("acme", "initech")) {
                redis.call("SET", prefix + ":{p:" + peer + "}:test-clock", Long.toString(ScriptClock.START_MICROS),
                        "EX", "600");
            }
        }
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
        List.of(caller, otherCaller, challenging, busy).forEach(SipAgent::close);
    }

    /** A call through the challenging carrier: its 407, then the retry with credentials; the retry's final answer. */
    private Response challengedCall(SipAgent from, String number) throws Exception {
        SipAgent.Call call = from.invite(GW, config.sipPort(), number);
        Response challenge = call.awaitFinal(WAIT_MS);
        assertNotNull(challenge, "no answer to " + number);
        assertEquals(407, challenge.getStatusCode(), "the carrier's challenge is relayed");
        call.retryWithCredentials();
        Response answer = call.awaitFinal(WAIT_MS);
        assertNotNull(answer, "no answer to the retry of " + number);
        if (answer.getStatusCode() == 200) {
            call.ack();
            assertEquals(200, call.bye(WAIT_MS).getStatusCode());
        }
        return answer;
    }

    /** How many calls the peer's first window counts, as the admin API reads it. */
    private long windowCount(String peer) throws Exception {
        JsonNode view = new AdminClient(gateway.adminAddress()).get("/api/peers/" + peer).json();
        return view.get("limits").get(0).get("used").asLong();
    }

    @Test
    void fiveChallengedCallsAtTwentyASecondAllConnectAndTheWindowOfFiveCountsFive() throws Exception {
        List<CompletableFuture<Integer>> calls = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String number = "+155500" + i;
            calls.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return challengedCall(caller, number).getStatusCode();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, CompletableFuture.delayedExecutor(50L * i, TimeUnit.MILLISECONDS)));
        }
        List<Integer> finals = new ArrayList<>();
        for (CompletableFuture<Integer> call : calls) {
            finals.add(call.get(WAIT_MS, TimeUnit.MILLISECONDS));
        }
        assertEquals(List.of(200, 200, 200, 200, 200), finals, "5 of 5 connect");
        assertEquals(10, challenging.received(Request.INVITE).size(), "each call reached the carrier twice");
        assertEquals(5, windowCount("acme"), "the window counts each call once");

        SipAgent.Call sixth = caller.invite(GW, config.sipPort(), "+1555009");
        assertEquals(503, sixth.awaitFinal(WAIT_MS).getStatusCode(), "the window of 5 is full: the limit holds");
    }

    @Test
    void aRetryWithNoChallengeBeforeItIsACallOfItsOwn() throws Exception {
        long before = windowCount("initech");
        SipAgent.Call call = otherCaller.invite(GW, config.sipPort(), "+2555001");
        assertEquals(486, call.awaitFinal(WAIT_MS).getStatusCode());
        call.retryWithCredentials();
        assertEquals(486, call.awaitFinal(WAIT_MS).getStatusCode());
        assertEquals(before + 2, windowCount("initech"), "a 486 is no challenge: its retry counts again");
    }

    /** Last: it stops the gateway, so that its records are all written. */
    @Test
    @Order(Integer.MAX_VALUE)
    void aChallengedCallHasOneRecordWithTheChallengeAsAnAttempt() throws Exception {
        SipAgent.Call call = otherCaller.invite(GW, config.sipPort(), "+1555100");
        assertEquals(407, call.awaitFinal(WAIT_MS).getStatusCode());
        call.retryWithCredentials();
        assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
        call.ack();
        assertEquals(200, call.bye(WAIT_MS).getStatusCode());
        gateway.close();
        gateway = null;

        ObjectMapper json = new ObjectMapper();
        List<JsonNode> found = new ArrayList<>();
        for (String line : Files.readAllLines(records)) {
            JsonNode record = json.readTree(line);
            if (record.get("callId").asText().equals(call.callId())) {
                found.add(record);
            }
        }
        assertEquals(1, found.size(), "one record for the call: " + found);
        JsonNode record = found.get(0);
        assertEquals(200, record.get("finalStatus").asInt(), record.toString());
        assertEquals(1, record.get("cseq").asLong(), "the call's identity is its first INVITE's: " + record);
        JsonNode attempts = record.get("attempts");
        assertEquals(2, attempts.size(), record.toString());
        assertEquals(407, attempts.get(0).get("finalStatus").asInt(), record.toString());
        assertEquals(200, attempts.get(1).get("finalStatus").asInt(), record.toString());
    }
}
