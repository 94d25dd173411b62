package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.Limit;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One JSON call record per call at its end, with the right answer and end times, in the configured file. */
class CallRecordsTest {

    private static final long WAIT_MS = 5000;

    @Test
    void answeredRefusedAndStillUpCallsEachGetARecord(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        SipAgent caller = SipAgent.start("127.0.0.131");
        SipAgent carrier = SipAgent.start("127.0.0.132");
        int port = RedisServerProcess.freePort();
        String answeredId;
        String refusedId;
        String upId;
        Instant byeSent;
        try {
            Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("records", port)
                    .instance("records-gw")
                    .callRecords(file)
                    .peer("caller", "127.0.0.131", Limit.exact(Duration.ofMinutes(1), 2))
                    .carrier("carrier", carrier, 1000, Duration.ofSeconds(1), Duration.ofSeconds(5))
                    .route("", "carrier")
                    .build());
            SipAgent.Call answered = caller.invite("127.0.0.1", port, "+4430");
            assertEquals(200, answered.awaitFinal(WAIT_MS).getStatusCode());
            answered.ack();
            SipAgent.Call up = caller.invite("127.0.0.1", port, "+4431");
            assertEquals(200, up.awaitFinal(WAIT_MS).getStatusCode());
            up.ack();
            SipAgent.Call refused = caller.invite("127.0.0.1", port, "+4432");
            assertEquals(503, refused.awaitFinal(WAIT_MS).getStatusCode(), "the third call in a minute is over 2/min");
            byeSent = Instant.now();
            assertEquals(200, answered.bye(WAIT_MS).getStatusCode());
            answeredId = answered.callId();
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
        Instant invitedAt = Instant.parse(answered.get("invitedAt").asText());
        Instant answeredAt = Instant.parse(answered.get("answeredAt").asText());
        Instant endedAt = Instant.parse(answered.get("endedAt").asText());
        assertTrue(!answeredAt.isBefore(invitedAt) && !endedAt.isBefore(answeredAt), answered.toString());
        assertTrue(!endedAt.isBefore(byeSent), "ended when its BYE was answered, not before: " + answered);
        assertEquals(Duration.between(answeredAt, endedAt).toMillis(), answered.get("durationMs").asLong());

        JsonNode refused = byCall.get(refusedId);
        assertEquals("rejected", refused.get("admission").asText());
        assertTrue(refused.get("refusedBy").asText().contains("caller"), refused.toString());
        assertEquals(503, refused.get("finalStatus").asInt());
        assertTrue(refused.get("answeredAt").isNull());
        assertEquals(0, refused.get("durationMs").asLong());
        assertEquals("failed", refused.get("endedBy").asText());

        JsonNode up = byCall.get(upId);
        assertEquals("shutdown", up.get("endedBy").asText(), "a call still up when the gateway stopped");
        assertTrue(up.get("durationMs").asLong() >= 0);
    }
}
