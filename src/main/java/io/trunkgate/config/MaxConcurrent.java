package io.trunkgate.config;

import java.util.OptionalInt;

/** The optional {@code max-concurrent} key of a peer, group or carrier file: calls in progress at once. */
final class MaxConcurrent {

    private MaxConcurrent() {
    }

    static OptionalInt read(ConfigSection file) {
        return file.optional("max-concurrent").integer(1, Integer.MAX_VALUE)
                .map(OptionalInt::of).orElse(OptionalInt.empty());
    }
}
