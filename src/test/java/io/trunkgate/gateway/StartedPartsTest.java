package io.trunkgate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StartedPartsTest {

    private final List<String> stopped = new ArrayList<>();

    @Test
    void partsStopInTheReverseOfTheOrderTheyStarted() {
        StartedParts parts = new StartedParts();
        parts.started("threads", () -> stopped.add("threads"));
        parts.add("redis", () -> stopped.add("redis"));
        parts.started("sip stack", () -> stopped.add("sip stack"));

        parts.close();

        assertEquals(List.of("sip stack", "redis", "threads"), stopped);
    }

    @Test
    void aPartThatFailsToStopDoesNotKeepTheOthersRunning() {
        StartedParts parts = new StartedParts();
        parts.started("threads", () -> stopped.add("threads"));
        parts.started("records", () -> {
            throw new IllegalStateException("disk gone");
        });
        parts.started("sip stack", () -> stopped.add("sip stack"));

        parts.close();

        assertEquals(List.of("sip stack", "threads"), stopped);
    }

    @Test
    void aSecondCloseStopsNothingTwice() {
        StartedParts parts = new StartedParts();
        parts.started("threads", () -> stopped.add("threads"));

        parts.close();
        parts.close();

        assertEquals(List.of("threads"), stopped);
    }
}
