package io.trunkgate.records;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.config.CallRecordSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records queued by many threads, written by the writer's own in batches: each in the file once when the writer
 * closes (the gateway's stop), in each thread's order, as the JSON object docs/records.md describes; a reopen after
 * the file was moved away splits them at the reopen.
 */
class CallRecordWriterTest {

    private final ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1);
    private final ObjectMapper json = new ObjectMapper();

    @AfterEach
    void stop() {
        thread.shutdownNow();
    }

    @Test
    void everyRecordOfManyThreadsIsInTheFileOnceWhenTheWriterCloses(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        CallRecordWriter writer = CallRecordWriter.open(settings(file), "many", record -> true, thread);
        AtomicInteger heard = new AtomicInteger();
        writer.listen(record -> heard.incrementAndGet());
        List<Thread> ending = IntStream.range(0, 4).mapToObj(t -> new Thread(() -> {
            for (int i = 0; i < 500; i++) {
                writer.write(record(t + "-" + i));
            }
        })).toList();
        ending.forEach(Thread::start);
        for (Thread t : ending) {
            t.join();
        }
        assertEquals(2_000, heard.get(), "listeners have every record as it is written");
        writer.close();
        writer.write(record("after-close"));

        List<String> callIds = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            callIds.add(json.readTree(line).get("callId").asText());
        }
        assertEquals(2_000, callIds.size(), "one line per record");
        assertEquals(2_000, callIds.stream().distinct().count(), "each record once");
        for (int t = 0; t < 4; t++) {
            String prefix = t + "-";
            assertEquals(IntStream.range(0, 500).mapToObj(i -> prefix + i).toList(),
                    callIds.stream().filter(id -> id.startsWith(prefix)).toList(), "one thread's order");
        }
    }

    @Test
    void recordsQueuedBeforeAReopenGoToTheFileMovedAwayAndLaterOnesToTheNewFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        Path rotated = dir.resolve("calls.jsonl.1");
        CallRecordWriter writer = CallRecordWriter.open(settings(file), "reopened", record -> true, thread);
        writer.write(record("before-1"));
        writer.write(record("before-2"));
        Files.move(file, rotated);
        writer.reopen();
        writer.write(record("after"));
        writer.close();
        assertEquals(List.of("before-1", "before-2"), callIds(rotated));
        assertEquals(List.of("after"), callIds(file));
    }

    @Test
    void aRecordIsOneJsonObjectWithItsFieldsInTheDocumentedOrder(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("calls.jsonl");
        CallRecordWriter writer = CallRecordWriter.open(settings(file), "format", record -> true, thread);
        Instant invited = Instant.parse("2026-01-01T00:00:00.125Z");
        CallRecord answered = new CallRecord("a\"b@host", "gw", new CallRecord.Caller("192.0.2.1:5060", "udp",
                "+4420", "+4430", "+4430", null, "tag", 7L), "acme", "wholesale", "admitted", null,
                List.of("peer:acme 10/1000ms"), List.of("carrier-a", "carrier-b"), List.of("carrier-a->carrier-b:503"),
                List.of(new CallRecord.Attempt("carrier-a", "198.51.100.1:5060/udp", 3, invited, 503, 12L, null, null,
                        null), new CallRecord.Attempt("carrier-b", "198.51.100.2:5060/udp", 0, invited, 200, 10L,
                        900L, 2_000L, 5L)), 3, invited, invited.plusMillis(1), 950L, 2_100L,
                invited.plusMillis(2_100), invited.plusSeconds(60), 57_900, 200, "SIP;cause=200", "bye", "callee",
                null);
        writer.write(answered);
        writer.close();
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), lines.toString());
        JsonNode record = json.readTree(lines.get(0));
        assertEquals(List.of("callId", "fromTag", "cseq", "gateway", "gatewayStartedAt", "sourceAddress", "transport",
                "fromUser", "toUser", "requestUser", "paiUser", "peer", "group", "admission", "refusedBy", "wouldRefuse",
                "carriers", "reroutes", "attempts", "finalCarrier", "heldMs", "invitedAt", "decidedAt", "pddMs",
                "setupMs", "answeredAt", "endedAt", "durationMs", "finalStatus", "reason", "endedBy", "hungUpBy",
                "hangupReason"), names(record));
        assertEquals(List.of("carrier", "address", "slotWaitMs", "sentAt", "finalStatus", "firstProvisionalMs",
                "ringingMs", "answerMs", "shadowWaitMs"), names(record.get("attempts").get(0)));
        assertEquals("a\"b@host", record.get("callId").asText());
        assertEquals(7, record.get("cseq").asLong());
        assertTrue(record.get("paiUser").isNull());
        assertTrue(record.get("refusedBy").isNull());
        assertEquals("peer:acme 10/1000ms", record.get("wouldRefuse").get(0).asText());
        assertEquals("carrier-a->carrier-b:503", record.get("reroutes").get(0).asText());
        assertEquals("carrier-b", record.get("finalCarrier").asText());
        assertEquals("2026-01-01T00:00:00.125Z", record.get("invitedAt").asText());
        assertEquals(950, record.get("pddMs").asLong());
        assertEquals(57_900, record.get("durationMs").asLong());
        assertTrue(record.get("hangupReason").isNull());
        JsonNode first = record.get("attempts").get(0);
        assertEquals(503, first.get("finalStatus").asInt());
        assertTrue(first.get("ringingMs").isNull());
        assertEquals(5, record.get("attempts").get(1).get("shadowWaitMs").asLong());
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        object.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private List<String> callIds(Path file) throws Exception {
        List<String> ids = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            ids.add(json.readTree(line).get("callId").asText());
        }
        return ids;
    }

    private static CallRecordSettings settings(Path file) {
        return new CallRecordSettings(Optional.of(file), 100, 3);
    }

    private static CallRecord record(String callId) {
        Instant at = Instant.parse("2026-01-01T00:00:00Z");
        return new CallRecord(callId, "gw", CallRecord.Caller.at("127.0.0.1:5060", "tag", 1L), "acme", null,
                "rejected", "peer:acme 1/1000ms", List.of(), List.of(), List.of(), List.of(), 0, at, null, null, 1L,
                null, at, 0, 503, null, "failed", "gateway", null);
    }
}
