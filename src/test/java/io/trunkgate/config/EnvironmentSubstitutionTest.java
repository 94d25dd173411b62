package io.trunkgate.config;

import static io.trunkgate.config.ConfigFiles.assertError;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** ${VAR} and ${?VAR} take values from the environment, as the sample does for secrets. */
class EnvironmentSubstitutionTest {

    private static final String UNSET = "TRUNKGATE_TEST_SURELY_UNSET_VARIABLE";

    @TempDir
    Path dir;

    @Test
    void setVariableIsSubstituted() throws Exception {
        String home = System.getenv("HOME");
        assertNotNull(home, "the test needs HOME set");
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf", "admin.token = ${?HOME}\n");

        assertEquals(Optional.of(home), files.load().admin().token());
    }

    @Test
    void unsetOptionalVariableLeavesTheKeyOut() throws Exception {
        assertEquals(null, System.getenv(UNSET));
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf",
                "admin.token = ${?" + UNSET + "}\nredis.password = ${?" + UNSET + "}\n");

        GatewayConfig config = files.load();

        assertEquals(Optional.empty(), config.admin().token());
        assertEquals(Optional.empty(), config.redis().password());
    }

    @Test
    void unsetRequiredVariableIsAnErrorAtItsLine() {
        ConfigFiles files = new ConfigFiles(dir).write("gateway.conf", "fleet-size = 2\nadmin.token = ${" + UNSET + "}\n");

        assertError(files.errors(), files.path("gateway.conf"), 2, "", "Could not resolve substitution");
    }
}
