package io.trunkgate.whatif;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads call records (JSON lines), keeping the calls between two times and noting the lines it cannot read. */
final class RecordsFile {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RecordsFile() {
    }

    /** The calls read, in file order, and every line that is not a call record, as "file:line: why". */
    record Contents(List<RecordedCall> calls, List<String> broken) {
    }

    static Contents read(List<Path> files, Optional<Instant> from, Optional<Instant> to) throws IOException {
        List<RecordedCall> calls = new ArrayList<>();
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                int number = 0;
                for (String line; (line = in.readLine()) != null; ) {
                    number++;
                    if (line.isBlank()) {
                        continue;
                    }
                    String where = file + ":" + number;
                    try {
                        RecordedCall call = call(where, JSON.readTree(line));
                        if (from.map(f -> !call.invitedAt().isBefore(f)).orElse(true)
                                && to.map(t -> call.invitedAt().isBefore(t)).orElse(true)) {
                            calls.add(call);
                        }
                    } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
                        broken.add(where + ": " + reason(e));
                    }
                }
            }
        }
        return new Contents(calls, broken);
    }

    private static RecordedCall call(String where, JsonNode record) throws UnknownHostException {
        String callId = text(record, "callId");
        String source = text(record, "sourceAddress");
        // "ip:port", "[v6]:port", or the IP alone for a shed call
        String host = source.startsWith("[") ? source.substring(1, source.indexOf(']'))
                : source.indexOf(':') == source.lastIndexOf(':') && source.contains(":")
                ? source.substring(0, source.indexOf(':')) : source;
        if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}") && !(host.contains(":") && host.matches("[0-9a-fA-F:.]+"))) {
            throw new IllegalArgumentException("sourceAddress " + source + " is not an IP address");
        }
        JsonNode cseq = record.get("cseq");
        String fromTag = record.path("fromTag").asText("");
        String callKey = callId + '\n' + fromTag + '\n' + (cseq == null || cseq.isNull() ? "" : cseq.asText());
        JsonNode refusedBy = record.get("refusedBy");
        List<String> wouldRefuse = new ArrayList<>();
        record.path("wouldRefuse").forEach(w -> wouldRefuse.add(w.asText()));
        Instant invitedAt = Instant.parse(text(record, "invitedAt"));
        JsonNode decided = record.get("decidedAt");
        Instant decidedAt = decided != null && decided.isTextual() ? Instant.parse(decided.asText()) : null;
        List<RecordedCall.Attempt> attempts = new ArrayList<>();
        for (JsonNode attempt : record.path("attempts")) {
            JsonNode sentAt = attempt.get("sentAt");
            attempts.add(new RecordedCall.Attempt(text(attempt, "carrier"), attempt.path("slotWaitMs").asLong(),
                    sentAt == null || !sentAt.isTextual() ? invitedAt : Instant.parse(sentAt.asText()),
                    attempt.path("finalStatus").asInt()));
        }
        List<RecordedCall.Reroute> reroutes = new ArrayList<>();
        for (JsonNode reroute : record.path("reroutes")) {
            // "from->to:reason"
            String text = reroute.asText();
            int arrow = text.indexOf("->");
            int colon = text.indexOf(':', Math.max(arrow, 0));
            if (arrow > 0 && colon > arrow) {
                reroutes.add(new RecordedCall.Reroute(text.substring(0, arrow), text.substring(colon + 1)));
            }
        }
        JsonNode started = record.get("gatewayStartedAt");
        Instant gatewayStartedAt = started != null && started.isTextual() ? Instant.parse(started.asText()) : null;
        return new RecordedCall(where, record.path("gateway").asText(""), gatewayStartedAt, invitedAt, decidedAt,
                decided == null || decidedAt != null, record.path("transport").isTextual(), endedAt(record, invitedAt), callKey, InetAddress.getByName(host),
                text(record, "peer"), text(record, "admission"),
                refusedBy == null || refusedBy.isNull() ? null : refusedBy.asText(), wouldRefuse,
                record.path("requestUser").asText(""), attempts, reroutes);
    }

    /** The record's endedAt; else its answeredAt plus durationMs; else {@code invitedAt}. */
    private static Instant endedAt(JsonNode record, Instant invitedAt) {
        JsonNode ended = record.get("endedAt");
        if (ended != null && ended.isTextual()) {
            return Instant.parse(ended.asText());
        }
        JsonNode answered = record.get("answeredAt");
        if (answered != null && answered.isTextual()) {
            return Instant.parse(answered.asText()).plusMillis(record.path("durationMs").asLong());
        }
        return invitedAt;
    }

    private static String text(JsonNode record, String field) {
        JsonNode value = record.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("no " + field);
        }
        return value.asText();
    }

    private static String reason(Exception e) {
        return e instanceof IOException ? "not JSON" : e.getMessage();
    }
}
