package io.trunkgate.testing;

import com.fasterxml.jackson.databind.JsonNode;

/** Reading the JSON of GET /api/history in tests. */
public final class History {

    private History() {
    }

    /** The sum of one series ({@code kind} "peers" or "carriers"); 0 before the first sample has the id. */
    public static long total(JsonNode history, String kind, String id, String field) {
        long total = 0;
        for (JsonNode entry : history.get(kind)) {
            if (entry.get("id").asText().equals(id)) {
                for (JsonNode value : entry.get(field)) {
                    total += value.asLong();
                }
            }
        }
        return total;
    }
}
