package io.trunkgate.config;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where call records go: one JSON line per call at its end, in {@code file}, rotated at {@code maxFileMegabytes}
 * with {@code maxFiles} old files kept. No file: no records.
 */
public record CallRecordSettings(Optional<Path> file, int maxFileMegabytes, int maxFiles) {

    public static final CallRecordSettings NONE = new CallRecordSettings(Optional.empty(), 100, 10);
}
