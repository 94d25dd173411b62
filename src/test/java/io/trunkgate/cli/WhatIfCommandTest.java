package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The what-if command: its report on the terminal and as JSON, and a configuration with errors refused. */
class WhatIfCommandTest {

    private static String record(int i, String admission) {
        return "{\"callId\":\"c" + i + "\",\"fromTag\":\"t\",\"cseq\":1,\"sourceAddress\":\"192.0.2.7:5060\","
                + "\"peer\":\"acme\",\"admission\":\"" + admission + "\",\"refusedBy\":null,"
                + "\"invitedAt\":\"2026-11-20T08:00:00." + (100 + i) + "Z\"}\n";
    }

    private static Path configWith(Path dir, String limits) throws Exception {
        Files.createDirectories(dir.resolve("peers"));
        Files.writeString(dir.resolve("gateway.conf"), "instance-id = what-if\n");
        Files.writeString(dir.resolve("peers/acme.conf"),
                "id = acme\nmatch.sources = [\"192.0.2.7\"]\nlimits = [ " + limits + " ]\n");
        return dir;
    }

    @Test
    void theReportComparesTheReplayWithTheRecords(@TempDir Path dir) throws Exception {
        Path records = dir.resolve("calls.jsonl");
        Files.writeString(records, record(1, "admitted") + record(2, "admitted") + "{broken\n" + record(3, "rejected"));
        Path config = configWith(dir.resolve("conf"), "{ window = 1s, max = 1 }");

        CommandRun table = CommandRun.of("what-if", "--records", records.toString(), "--config", config.toString());
        assertEquals(0, table.exit(), table.err());
        assertTrue(table.out().matches("(?s)\\s*peer +offered +admitted +refused .*\\nacme +3 +1 +2 +2 +1 +2 \\(66\\.67%\\).*"),
                table.out());
        assertTrue(table.out().contains("acme: refused by peer:acme 1 per 1 s: 2"), table.out());
        assertTrue(table.out().contains(records + ":3: not JSON"), table.out());

        CommandRun json = CommandRun.of("what-if", "--records", records.toString(), "--config", config.toString(),
                "--json", "--from", "2026-11-20T08:00:00.102Z");
        assertEquals(0, json.exit(), json.err());
        JsonNode report = new ObjectMapper().readTree(json.out());
        assertEquals(2, report.get("peers").get("acme").get("offered").asLong(), json.out());
        assertEquals(1, report.get("brokenCount").asInt());
    }

    @Test
    void aConfigurationWithErrorsIsRefusedWithFileLineAndKey(@TempDir Path dir) throws Exception {
        Path records = dir.resolve("calls.jsonl");
        Files.writeString(records, record(1, "admitted"));
        Path config = configWith(dir.resolve("conf"), "{ window = 1s, max = 1, mode = dry-run }");
        CommandRun result = CommandRun.of("what-if", "--records", records.toString(), "--config", config.toString());
        assertEquals(1, result.exit());
        assertTrue(result.err().contains("acme.conf:3: limits[0].mode: must be one of enforce, shadow"), result.err());
    }
}
