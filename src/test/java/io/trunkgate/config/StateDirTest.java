package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relative records.file resolves against state-dir, by default the working directory (/var/lib/trunkgate under
 * the package's unit), never against gateway.conf's directory (/etc/trunkgate, read-only to the service).
 */
class StateDirTest {

    @TempDir
    Path dir;

    @Test
    void aRelativeRecordsFileResolvesAgainstTheWorkingDirectoryByDefault() throws Exception {
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf", "records.file = calls.jsonl\n");

        assertEquals(Optional.of(Path.of("").toAbsolutePath().resolve("calls.jsonl")), files.load().records().file());
    }

    @Test
    void aRelativeRecordsFileResolvesAgainstStateDir() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf",
                "state-dir = \"" + state + "\"\nrecords.file = records/calls.jsonl\n");

        assertEquals(Optional.of(state.resolve("records/calls.jsonl")), files.load().records().file());
    }

    @Test
    void anAbsoluteRecordsFileStaysWhereItIs() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        Path elsewhere = dir.resolve("elsewhere.jsonl");
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf",
                "state-dir = \"" + state + "\"\nrecords.file = \"" + elsewhere + "\"\n");

        assertEquals(Optional.of(elsewhere), files.load().records().file());
    }

    @Test
    void aStateDirThatDoesNotExistIsAnError() {
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf",
                "fleet-size = 1\nstate-dir = \"" + dir.resolve("missing") + "\"\n");

        assertError(files.errors(), files.path("gateway.conf"), 2, "state-dir", "no such directory");
    }

    @Test
    void aRecordsFileInADirectoryThatDoesNotExistIsAWarning() throws Exception {
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf",
                "state-dir = \"" + dir + "\"\nrecords.file = missing/calls.jsonl\n");

        List<String> warnings = WritablePaths.warnings(files.load());

        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("records.file: " + dir.resolve("missing/calls.jsonl")
                + ": no such directory"), warnings.get(0));
    }

    @Test
    void aWritableRecordsFileIsNoWarning() throws Exception {
        ConfigFiles files = new ConfigFiles(dir.resolve("etc")).write("gateway.conf",
                "state-dir = \"" + dir + "\"\nrecords.file = calls.jsonl\n");

        assertEquals(List.of(), WritablePaths.warnings(files.load()));
    }
}
