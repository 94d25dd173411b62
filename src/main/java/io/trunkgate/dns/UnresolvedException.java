package io.trunkgate.dns;

/** A carrier's host name could not be resolved to any address. */
public final class UnresolvedException extends RuntimeException {

    public UnresolvedException(String message) {
        super(message, null, false, false);
    }
}
