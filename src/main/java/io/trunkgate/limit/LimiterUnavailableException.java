package io.trunkgate.limit;

/** The shared limit state (Redis) could not be reached or answered badly, so no decision was made. */
public class LimiterUnavailableException extends RuntimeException {
    public LimiterUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
