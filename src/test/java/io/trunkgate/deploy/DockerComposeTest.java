package io.trunkgate.deploy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docker-compose.yml is accepted by docker-compose (no Docker engine needed for {@code config}), with and
 * without the cluster profile. Skipped when docker-compose is not on PATH.
 */
class DockerComposeTest {

    private String compose;

    @BeforeEach
    void findDockerCompose() {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File file = new File(dir, "docker-compose");
            if (file.canExecute()) {
                compose = file.getAbsolutePath();
            }
        }
        Assumptions.assumeTrue(compose != null, "docker-compose is not on PATH");
    }

    /** The configuration as docker-compose resolved it. */
    private JsonNode config(String... options) throws Exception {
        List<String> command = new ArrayList<>(List.of(compose, "-f", "docker-compose.yml"));
        command.addAll(List.of(options));
        command.add("config");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "docker-compose config did not finish");
        assertEquals(0, process.exitValue(), "docker-compose refused docker-compose.yml:\n" + out);
        return new YAMLMapper().readTree(out);
    }

    @Test
    void redisAndTwoGatewaysOnStandaloneRedisByDefault() throws Exception {
        JsonNode services = config().get("services");
        for (String name : List.of("redis", "gateway-1", "gateway-2")) {
            assertTrue(services.has(name), name);
            assertFalse(services.get(name).has("profiles"), name + " runs without a profile");
        }
        for (String gateway : List.of("gateway-1", "gateway-2")) {
            JsonNode service = services.get(gateway);
            assertEquals("eclipse-temurin:17-jre", service.get("image").asText());
            JsonNode env = service.get("environment");
            assertEquals("standalone", env.get("TRUNKGATE_REDIS_MODE").asText());
            assertEquals("redis://redis:6379", env.get("TRUNKGATE_REDIS_ADDRESS").asText());
            assertEquals(gateway, env.get("TRUNKGATE_INSTANCE_ID").asText());
            String volumes = service.get("volumes").toString();
            assertTrue(volumes.contains("trunkgate.jar") && volumes.contains("/etc/trunkgate"), volumes);
        }
    }

    @Test
    void everyServiceRunsWithoutRootAndEveryLongRunningOneHasAHealthcheck() throws Exception {
        JsonNode services = config("--profile", "cluster").get("services");
        services.fieldNames().forEachRemaining(name -> {
            JsonNode service = services.get(name);
            String user = service.path("user").asText("");
            assertFalse(user.isEmpty() || user.equals("root") || user.startsWith("0:") || user.equals("0"),
                    name + " runs as root (user: '" + user + "')");
            if (!name.equals("redis-cluster-init")) {
                assertTrue(service.path("healthcheck").path("test").isArray(), name + " has no healthcheck");
            }
        });
        String gatewayCheck = services.get("gateway-1").get("healthcheck").get("test").toString();
        assertTrue(gatewayCheck.contains("/health"), gatewayCheck);
        assertEquals("service_healthy",
                services.get("gateway-1").get("depends_on").get("redis").get("condition").asText());
    }

    @Test
    void theClusterProfileAddsAThreeMasterRedisCluster() throws Exception {
        JsonNode services = config("--profile", "cluster").get("services");
        for (String name : List.of("redis-cluster-1", "redis-cluster-2", "redis-cluster-3", "redis-cluster-init")) {
            assertEquals("cluster", services.get(name).get("profiles").get(0).asText(), name);
        }
        assertTrue(services.get("redis-cluster-1").get("command").toString().contains("--cluster-enabled"));
        assertTrue(services.get("redis-cluster-init").get("command").toString().contains("--cluster create"));
    }
}
