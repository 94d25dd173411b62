package io.trunkgate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway without admin.token but with admin.token-file (as the sample's) makes a token at start, written for
 * its user only; the CLI given that gateway.conf reads it, so a first {@code trunkgate block} works; a restart makes
 * a new one.
 */
class MadeAdminTokenTest {

    @TempDir
    Path dir;

    @Test
    void theCliReadsTheTokenTheGatewayMadeAndWroteToItsStateDir() throws Exception {
        Path state = Files.createDirectories(dir.resolve("state"));
        Path conf = Files.createDirectories(dir.resolve("conf"));
        Files.writeString(conf.resolve("gateway.conf"), "instance-id = made-token\nstate-dir = \"" + state
                + "\"\nadmin.token-file = \"admin.token\"\n");
        Path tokenFile = state.resolve("admin.token");
        TestConfigs config = TestConfigs.onSharedRedis("made-token", RedisServerProcess.freePort())
                .adminTokenFile(tokenFile)
                .peer("acme", "127.0.0.223", Limit.exact(Duration.ofSeconds(1), 10));
        String first;
        try (Gateway gateway = Gateway.start(config.build())) {
            String admin = new AdminClient(gateway.adminAddress()).base();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
            first = Files.readString(tokenFile).strip();
            assertTrue(first.length() >= 40, "32 random bytes: " + first);

            AdminCommandsTest.Result block = AdminCommandsTest.run("block", "acme", "5m", "--admin", admin,
                    "--config", conf.resolve("gateway.conf").toString());
            assertEquals(0, block.exit(), block.err());
            assertEquals("peer acme blocked fleet-wide for 5m", block.out().strip());
            assertTrue(new AdminClient(gateway.adminAddress()).get("/api/blocks/acme").json().get("blocked")
                    .asBoolean());
            AdminCommandsTest.Result unblock = AdminCommandsTest.run("unblock", "acme", "--admin", admin,
                    "--config", conf.resolve("gateway.conf").toString());
            assertEquals(0, unblock.exit(), unblock.err());
        }
        try (Gateway again = Gateway.start(config.build())) {
            assertNotEquals(first, Files.readString(tokenFile).strip(), "a new token at every start");
        }
    }
}
