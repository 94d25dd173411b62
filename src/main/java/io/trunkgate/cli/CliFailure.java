package io.trunkgate.cli;

/** A command that cannot do what it was asked: the message for people and the exit code. */
final class CliFailure extends RuntimeException {

    /** The gateway answered, and refused (404 unknown peer or carrier, 422 reload refused, 503...). */
    static final int REFUSED = 1;
    /** The command line is wrong (picocli's own code for that too): an unknown option, a bad duration. */
    static final int USAGE = 2;
    /** The admin API could not be reached: connection refused, no answer in time. */
    static final int UNREACHABLE = 3;
    /** The admin API wants a token, or another one: 401, or 403 when the gateway has none configured. */
    static final int NOT_AUTHORIZED = 4;

    private final int exitCode;

    CliFailure(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
