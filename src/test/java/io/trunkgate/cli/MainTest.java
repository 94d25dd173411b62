package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.BuildInfo;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line's own handling: help, version, usage, where the admin commands go and what token they send. */
class MainTest {

    @Test
    void helpOnTheCommandAndEverySubcommandExitsZero() {
        assertEquals(0, AdminCommandsTest.run("--help").exit());
        CommandLine cli = Main.commandLine();
        for (String name : cli.getSubcommands().keySet()) {
            if (name.equals("help")) {
                continue;
            }
            for (String flag : new String[] {"--help", "-h"}) {
                AdminCommandsTest.Result result = AdminCommandsTest.run(name, flag);
                assertEquals(0, result.exit(), name + " " + flag + ": " + result.err());
                assertTrue(result.out().startsWith("Usage: trunkgate " + name), result.out());
            }
        }
        assertTrue(cli.getSubcommands().keySet().containsAll(java.util.List.of("run", "check-config", "status",
                "peers", "carriers", "block", "unblock", "carrier-down", "carrier-up", "drain", "reload")));
    }

    @Test
    void versionIsTheMavenVersionAndTheCommit() {
        AdminCommandsTest.Result result = AdminCommandsTest.run("--version");
        assertEquals(0, result.exit());
        BuildInfo build = BuildInfo.current();
        assertEquals("trunkgate " + build.version() + " (commit " + build.commit() + ")", result.out().strip());
        assertTrue(build.version().matches("\\d+\\.\\d+\\.\\d+.*"), build.version());
    }

    @Test
    void aBareTrunkgatePrintsItsUsageAndExitsTwo() {
        AdminCommandsTest.Result result = AdminCommandsTest.run();
        assertEquals(2, result.exit());
        assertTrue(result.err().startsWith("Usage: trunkgate"), result.err());
    }

    @Test
    void missingArgumentsAreUsageErrors() {
        assertEquals(2, AdminCommandsTest.run("block", "acme").exit());
        assertEquals(2, AdminCommandsTest.run("carrier-down", "a").exit());
        assertEquals(2, AdminCommandsTest.run("run").exit(), "run needs --config");
    }

    @Test
    void theAdminAddressComesFromTheOptionElseTheConfigElseTheDefault(@TempDir Path dir) throws Exception {
        AdminOptions options = new AdminOptions();
        assertEquals(URI.create("http://127.0.0.1:8080/"), options.base());
        Files.writeString(dir.resolve("gateway.conf"), "redis.mode = embedded\nadmin { host = \"0.0.0.0\", port = 9181 }\n");
        options.config = dir.resolve("gateway.conf");
        assertEquals(URI.create("http://127.0.0.1:9181/"), options.base(), "a server on every address, asked on loopback");
        options.admin = URI.create("http://10.1.2.3:9000");
        assertEquals(URI.create("http://10.1.2.3:9000/"), options.base());
    }

    @Test
    void durationsPrintInWholeUnitsWhereTheyFit() {
        assertEquals("500ms", AdminCommands.humanDuration(java.time.Duration.ofMillis(500)));
        assertEquals("45s", AdminCommands.humanDuration(java.time.Duration.ofSeconds(45)));
        assertEquals("1m", AdminCommands.humanDuration(java.time.Duration.ofSeconds(60)));
        assertEquals("4m58s", AdminCommands.humanDuration(java.time.Duration.ofSeconds(298)));
        assertEquals("2h", AdminCommands.humanDuration(java.time.Duration.ofHours(2)));
        assertEquals("2h30m", AdminCommands.humanDuration(java.time.Duration.ofMinutes(150)));
        assertEquals("1d", AdminCommands.humanDuration(java.time.Duration.ofDays(1)));
    }

    @Test
    void theTokenComesFromTheFileElseTheEnvironment(@TempDir Path dir) throws Exception {
        AdminOptions options = new AdminOptions();
        options.environment = Map.of();
        assertEquals(Optional.empty(), options.token());
        options.environment = Map.of("TRUNKGATE_ADMIN_TOKEN", " from-env\n");
        assertEquals(Optional.of("from-env"), options.token());
        options.environment = Map.of("TRUNKGATE_ADMIN_TOKEN", "");
        assertEquals(Optional.empty(), options.token(), "an empty variable is no token");
        Path file = dir.resolve("token");
        Files.writeString(file, "from-file\n");
        options.tokenFile = file;
        assertEquals(Optional.of("from-file"), options.token());
        Files.writeString(file, "\n");
        CliFailure empty = org.junit.jupiter.api.Assertions.assertThrows(CliFailure.class, options::token);
        assertEquals(CliFailure.USAGE, empty.exitCode());
    }
}
