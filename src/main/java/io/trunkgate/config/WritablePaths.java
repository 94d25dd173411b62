package io.trunkgate.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * check-config's look at the files the gateway writes (records.file): one it could not create or append to, as
 * the user running the check, is a warning, not an error, since the service may run as another user (the
 * package's unit runs as {@code trunkgate}, so check as that user: {@code runuser -u trunkgate -- trunkgate
 * check-config ...}).
 */
public final class WritablePaths {

    private WritablePaths() {
    }

    /** One line per file the gateway would fail to write: "records.file: ...". */
    public static List<String> warnings(GatewayConfig config) {
        List<String> warnings = new ArrayList<>();
        config.records().file().ifPresent(file -> problem(file).ifPresent(p -> warnings.add("records.file: " + p)));
        return warnings;
    }

    private static Optional<String> problem(Path file) {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        String user = System.getProperty("user.name");
        if (Files.exists(absolute)) {
            return Files.isWritable(absolute) ? Optional.empty()
                    : Optional.of(absolute + " is not writable by " + user);
        }
        if (dir == null || !Files.isDirectory(dir)) {
            return Optional.of(absolute + ": no such directory " + dir);
        }
        return Files.isWritable(dir) ? Optional.empty()
                : Optional.of(absolute + ": directory " + dir + " is not writable by " + user);
    }
}
