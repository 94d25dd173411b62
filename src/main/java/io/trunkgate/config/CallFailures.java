package io.trunkgate.config;

import java.time.Duration;
import java.util.Set;

/**
 * Passive health ({@code call-failures { ... }} in a carrier's file): calls to the carrier, or to one of its
 * addresses, that time out or get one of {@code codes}, {@code downAfter} in a row, set it down fleet-wide for
 * {@code downFor}; then calls try it again, and the first that fails sets it down again.
 *
 * @param downAfter failed calls in a row that set the carrier (or address) down; 0: calls never do
 * @param codes     final responses that count as a failed call besides a timeout (any other answer ends the row)
 * @param downFor   how long a carrier set down by its calls stays down before calls try it again
 */
public record CallFailures(int downAfter, Set<Integer> codes, Duration downFor) {

    /** What a carrier file without the block gets: three timeouts in a row, down for 30 s. */
    public static final CallFailures DEFAULTS = new CallFailures(3, Set.of(), Duration.ofSeconds(30));
    /** Calls never set the carrier down (carriers built in code: tests, the warm-up's). */
    public static final CallFailures OFF = new CallFailures(0, Set.of(), Duration.ofSeconds(30));

    public CallFailures {
        codes = Set.copyOf(codes);
    }

    public boolean enabled() {
        return downAfter > 0;
    }

    /** Whether a final response of {@code status} counts as a failed call. */
    public boolean failsOn(int status) {
        return codes.contains(status);
    }
}
