package io.trunkgate.records;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
 * closes (the gateway's stop), in each thread's order; a reopen after the file was moved away splits them at the
 * reopen.
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
