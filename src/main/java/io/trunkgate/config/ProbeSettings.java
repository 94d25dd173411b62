package io.trunkgate.config;

import java.time.Duration;
import java.util.Set;

/**
 * A carrier's health probing ({@code probe { ... }} in its file): SIP OPTIONS every {@code interval}.
 *
 * @param timeout   how long a probe waits for any response before it counts as failed
 * @param downAfter consecutive failures (probes, or calls that timed out or got 503) that mark the carrier down
 * @param upAfter   consecutive answered probes that bring a down carrier back
 * @param failCodes responses that count as a failure although the carrier answered (503 unless configured)
 */
public record ProbeSettings(Duration interval, Duration timeout, int downAfter, int upAfter, Set<Integer> failCodes) {
    public ProbeSettings {
        failCodes = Set.copyOf(failCodes);
    }
}
