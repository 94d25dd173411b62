package io.trunkgate.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.trunkgate.config.ConfigError;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.testing.TestCertificates;
import io.trunkgate.testing.TestCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A reload reads the TLS files a configuration names: one that would not load refuses the reload. */
class ConfigReloaderTlsTest {

    @TempDir
    Path dir;
    private final ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        worker.shutdownNow();
    }

    @Test
    void aKeyThatDoesNotMatchItsCertificateRefusesTheReload() throws Exception {
        TestCertificates certs = new TestCertificates(dir);
        certs.certificate("gw").write("chain");
        Issued other = certs.certificate("other").write("other");
        Path gatewayConf = Files.writeString(dir.resolve("gateway.conf"), "sip.listeners = [\n"
                + "  { transport = tls, host = \"127.0.0.1\", certificate = \"chain.pem\", private-key = \"chain.key\" }\n"
                + "]\n");
        List<GatewayConfig> applied = new ArrayList<>();
        try (ConfigReloader reloader = new ConfigReloader(gatewayConf, applied::add, () -> applied.size(), () -> { },
                Duration.ofHours(1), worker)) {
            assertTrue(reloader.reload().toCompletableFuture().get(10, TimeUnit.SECONDS).applied());

            Files.copy(other.keyFile(), dir.resolve("chain.key"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            ConfigReloader.Attempt refused = reloader.reload().toCompletableFuture().get(10, TimeUnit.SECONDS);

            assertFalse(refused.applied());
            assertEquals(List.of(new ConfigError(gatewayConf, 2, "sip.listeners[0].private-key", dir.resolve("chain.key")
                    + ": does not match the certificate in " + dir.resolve("chain.pem") + " (CN=gw)")), refused.errors());
            assertEquals(1, applied.size());
        }
    }
}
