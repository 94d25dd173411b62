package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.Await;
import io.trunkgate.testing.Metrics;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgent.Behaviour;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A carrier answering some calls, refusing others, busy for one, challenging one: its attempts, answers, final
 * responses, ASR and NER, and its peer's, in /metrics, /api/carriers, /api/peers and {@code trunkgate carriers}.
 * Answered calls are counted at their answer and not again when their record is written at the BYE; a challenged
 * call is one peer call of two attempts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AnswerRatiosThroughSipTest {

    private static final String GW = "127.0.0.1";
    private static final long WAIT_MS = 10_000;

    @TempDir
    static Path dir;
    private final SipAgents agents = new SipAgents();
    private Gateway gateway;
    private TestConfigs config;
    private SipAgent acme;
    private SipAgent carrier;

    @BeforeAll
    void start() throws Exception {
        acme = agents.start("127.0.0.231");
        carrier = agents.start("127.0.0.232");
        Duration wait = Duration.ofSeconds(5);
        config = TestConfigs.onSharedRedis("ratios", RedisServerProcess.freePort()).adminToken("ratios-token")
                .peer("acme", "127.0.0.231", Limit.exact(Duration.ofSeconds(1), 1000))
                .carrier("mixed", carrier, 1000, wait, wait)
                .route("", "mixed")
                .callRecords(dir.resolve("calls.jsonl"));
        gateway = Gateway.start(config.build());
    }

    @AfterAll
    void stop() {
        gateway.close();
        agents.close();
    }

    @Test
    void aMixOfAnsweredBusyRefusedAndChallengedCallsIsCountedOncePerAttemptAndPerCall() throws Exception {
        carrier.behave(Behaviour.RING_THEN_ANSWER);
        carrier.answerAfter(Duration.ofMillis(50));
        for (int i = 0; i < 3; i++) {
            SipAgent.Call call = acme.invite(GW, config.sipPort(), "+1000" + i);
            assertEquals(200, call.awaitFinal(WAIT_MS).getStatusCode());
            call.ack();
            assertEquals(200, call.bye(WAIT_MS).getStatusCode());
        }
        carrier.behave(Behaviour.BUSY_486);
        assertEquals(486, acme.invite(GW, config.sipPort(), "+10010").awaitFinal(WAIT_MS).getStatusCode());
        carrier.behave(Behaviour.ANSWER);
        carrier.refuse("+10020");
        carrier.refuse("+10021");
        for (String refused : new String[] {"+10020", "+10021"}) {
            assertEquals(503, acme.invite(GW, config.sipPort(), refused).awaitFinal(WAIT_MS).getStatusCode());
        }
        carrier.behave(Behaviour.CHALLENGE_407);
        SipAgent.Call challenged = acme.invite(GW, config.sipPort(), "+10030");
        assertEquals(407, challenged.awaitFinal(WAIT_MS).getStatusCode());
        challenged.retryWithCredentials();
        assertEquals(200, challenged.awaitFinal(WAIT_MS).getStatusCode());
        challenged.ack();
        assertEquals(200, challenged.bye(WAIT_MS).getStatusCode());
        // every call's record written (the answered ones' at their BYE): nothing more may count after this
        Path records = dir.resolve("calls.jsonl");
        assertEquals(7, Await.until(Duration.ofMillis(WAIT_MS),
                () -> Files.exists(records) ? Files.readAllLines(records).size() : 0, lines -> lines == 7),
                "seven call records");

        String scrape = gateway.metrics().scrape();
        Map<String, String> mixed = Map.of("carrier", "mixed");
        assertEquals(8.0, value(scrape, "trunkgate_carrier_attempts_total", mixed), "7 calls, one challenged twice");
        assertEquals(4.0, value(scrape, "trunkgate_carrier_attempts_answered_total", mixed));
        assertEquals(5.0, value(scrape, "trunkgate_carrier_attempts_effective_total", mixed), "answers and busy");
        assertEquals(4.0, value(scrape, "trunkgate_carrier_responses_total", Map.of("carrier", "mixed",
                "class", "2xx", "code", "200")));
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total", Map.of("carrier", "mixed",
                "class", "4xx", "code", "486")));
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total", Map.of("carrier", "mixed",
                "class", "4xx", "code", "other")), "the 407");
        assertEquals(2.0, value(scrape, "trunkgate_carrier_responses_total", Map.of("carrier", "mixed",
                "class", "5xx", "code", "503")));
        assertEquals(4.0, value(scrape, "trunkgate_carrier_setup_seconds_count", mixed),
                "every answer has a setup time");
        assertTrue(value(scrape, "trunkgate_carrier_setup_seconds_sum", mixed) >= 0.15,
                "three answers 50 ms after their 180 at least");
        Map<String, String> peer = Map.of("peer", "acme");
        assertEquals(7.0, value(scrape, "trunkgate_peer_calls_total", peer));
        assertEquals(4.0, value(scrape, "trunkgate_peer_calls_answered_total", peer));
        assertEquals(5.0, value(scrape, "trunkgate_peer_calls_effective_total", peer));
        assertEquals(5.0, value(scrape, "trunkgate_peer_post_dial_delay_seconds_count", peer),
                "every answered or busy call: a 180 was relayed, or the answer came without one");

        JsonNode answers = carrierView(new AdminClient(gateway.adminAddress())).get("answers");
        assertEquals(8, answers.get("attempts").asLong());
        assertEquals(0.5, answers.get("asr").asDouble(), 1e-9);
        assertEquals(5.0 / 8, answers.get("ner").asDouble(), 1e-9);
        assertEquals(2, answers.get("finals").get("5xx").asLong());
        JsonNode acmeView = new AdminClient(gateway.adminAddress()).get("/api/peers").json().get("peers").get(0);
        assertEquals(4.0 / 7, acmeView.get("answers").get("asr").asDouble(), 1e-9);

        AdminCommandsTest.Result carriers = AdminCommandsTest.run("carriers", "--admin",
                "http://" + GW + ":" + gateway.adminAddress().getPort());
        assertEquals(0, carriers.exit(), carriers.err());
        String line = carriers.out().lines().filter(l -> l.startsWith("mixed ")).findFirst().orElseThrow();
        assertTrue(line.matches("mixed +up .* 8 +50\\.0% +62\\.5% +\\d+ms"), carriers.out());
    }

    private static double value(String scrape, String name, Map<String, String> labels) {
        return Metrics.value(scrape, name, labels).orElseThrow(() -> new AssertionError(name + labels));
    }

    private static JsonNode carrierView(AdminClient admin) throws Exception {
        return admin.get("/api/carriers").json().get("carriers").get(0);
    }
}
