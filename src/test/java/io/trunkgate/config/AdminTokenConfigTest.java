package io.trunkgate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An empty admin.token, as `TRUNKGATE_ADMIN_TOKEN=` in /etc/default/trunkgate gives through the sample's
 * `token = ${?TRUNKGATE_ADMIN_TOKEN}`, is no token: the gateway starts and refuses the API's changes.
 */
class AdminTokenConfigTest {

    @TempDir
    Path dir;

    @Test
    void anEmptyTokenIsNoTokenNotAnError() throws Exception {
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf", "fleet-size = 1\nadmin.token = \"\"\n");

        assertEquals(Optional.empty(), files.load().admin().token());
    }

    @Test
    void aBlankTokenIsNoTokenEither() throws Exception {
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf", "fleet-size = 1\nadmin.token = \"  \"\n");

        assertEquals(Optional.empty(), files.load().admin().token());
    }

    @Test
    void aTokenIsKept() throws Exception {
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf", "fleet-size = 1\nadmin.token = \"s3cret\"\n");

        assertEquals(Optional.of("s3cret"), files.load().admin().token());
    }
}
