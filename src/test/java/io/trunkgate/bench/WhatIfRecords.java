package io.trunkgate.bench;

import io.trunkgate.testing.GeneratedRecords;
import java.nio.file.Path;

/**
 * Writes generated call records and the configuration that decided them (GeneratedRecords) for bench/what-if.sh:
 * {@code main(dir, calls, meanGapMicros)} writes {@code dir/calls.jsonl} and {@code dir/conf/}.
 */
public final class WhatIfRecords {

    private WhatIfRecords() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        GeneratedRecords.writeConfig(dir.resolve("conf"), GeneratedRecords.PEER_A_LIMITS);
        GeneratedRecords.write(dir.resolve("calls.jsonl"), Integer.parseInt(args[1]), Long.parseLong(args[2]), 36);
    }
}
