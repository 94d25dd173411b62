package io.trunkgate.pace;

/** The carrier slot ledger (Redis) could not be reached, so no slot was reserved. */
public class PacerUnavailableException extends RuntimeException {
    public PacerUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
