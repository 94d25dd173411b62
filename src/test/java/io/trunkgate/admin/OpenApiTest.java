package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.trunkgate.config.Limit;
import io.trunkgate.gateway.Gateway;
import io.trunkgate.redis.RedisServerProcess;
import io.trunkgate.testing.AdminClient;
import io.trunkgate.testing.SipAgent;
import io.trunkgate.testing.SipAgents;
import io.trunkgate.testing.TestConfigs;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/openapi.yaml and the server agree: the routes it describes are exactly the routes of {@link AdminRoutes}
 * (method and path template), each path parameter is declared, and a running gateway answers each described
 * route with one of the statuses described for it.
 */
class OpenApiTest {

    // YAML read with jackson-dataformat-yaml, which Redisson brings (it reads its own YAML configuration)

    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");
    private static final Pattern TEMPLATE_PARAMETER = Pattern.compile("\\{([^/}]+)}");
    private static final String TOKEN = "openapi-token";

    private record Operation(String method, String path, JsonNode spec) {
        String key() {
            return method.toUpperCase() + " " + path;
        }
    }

    private static JsonNode document() throws Exception {
        return new ObjectMapper(new YAMLFactory()).readTree(Path.of("docs/openapi.yaml").toFile());
    }

    private static List<Operation> operations(JsonNode document) {
        List<Operation> operations = new ArrayList<>();
        for (Iterator<Map.Entry<String, JsonNode>> paths = document.get("paths").fields(); paths.hasNext(); ) {
            Map.Entry<String, JsonNode> path = paths.next();
            path.getValue().fields().forEachRemaining(op -> {
                if (METHODS.contains(op.getKey())) {
                    operations.add(new Operation(op.getKey(), path.getKey(), op.getValue()));
                }
            });
        }
        return operations;
    }

    @Test
    void theDocumentDescribesExactlyTheRoutesTheServerHas() throws Exception {
        JsonNode document = document();
        assertTrue(document.get("openapi").asText().startsWith("3."), "OpenAPI 3");
        Set<String> described = new TreeSet<>();
        operations(document).forEach(op -> described.add(op.key()));
        Set<String> served = new TreeSet<>();
        AdminRoutes.ALL.forEach(route -> served.add(route.method().name() + " " + route.path()));
        assertEquals(served, described);
    }

    @Test
    void everyPathParameterIsDeclared() throws Exception {
        JsonNode document = document();
        for (Operation op : operations(document)) {
            Set<String> inTemplate = new TreeSet<>();
            Matcher m = TEMPLATE_PARAMETER.matcher(op.path());
            while (m.find()) {
                inTemplate.add(m.group(1));
            }
            Set<String> declared = new TreeSet<>();
            JsonNode parameters = op.spec().get("parameters");
            if (parameters != null) {
                for (JsonNode parameter : parameters) {
                    JsonNode resolved = resolve(document, parameter);
                    if (resolved.get("in").asText().equals("path")) {
                        declared.add(resolved.get("name").asText());
                    }
                }
            }
            assertEquals(inTemplate, declared, op.key());
            assertTrue(op.spec().hasNonNull("summary"), op.key() + " has a summary");
            assertTrue(op.spec().get("responses").size() > 0, op.key() + " has responses");
        }
    }

    @Test
    void aRunningGatewayAnswersEveryDescribedRouteWithADescribedStatus() throws Exception {
        JsonNode document = document();
        SipAgents agents = new SipAgents();
        SipAgent carrier = agents.start("127.0.0.231");
        Duration wait = Duration.ofSeconds(5);
        Gateway gateway = Gateway.start(TestConfigs.onSharedRedis("openapi", RedisServerProcess.freePort())
                .adminToken(TOKEN)
                .peer("acme", "127.0.0.230", Limit.exact(Duration.ofSeconds(1), 10))
                .carrier("a", carrier, 10, wait, wait)
                .route("", "a").build());
        try {
            AdminClient admin = new AdminClient(gateway.adminAddress());
            // drain last: it changes what the others answer
            List<Operation> operations = new ArrayList<>(operations(document));
            operations.sort(Comparator.comparing(op -> op.path().equals("/api/drain")));
            for (Operation op : operations) {
                String path = op.path().replace("{id}", op.path().startsWith("/api/carriers") ? "a" : "acme");
                boolean takesDuration = op.path().equals("/api/blocks/{id}") && op.method().equals("put")
                        || op.path().endsWith("/down");
                AdminClient.Answer answer = admin.send(op.method().toUpperCase(),
                        path + (takesDuration ? "?duration=1ms" : ""), null, TOKEN);
                assertTrue(op.spec().get("responses").has(String.valueOf(answer.status())),
                        op.key() + " answered " + answer.status() + ", not described: " + answer.body());
            }
        } finally {
            gateway.close();
            agents.close();
        }
    }

    private static JsonNode resolve(JsonNode document, JsonNode node) {
        JsonNode ref = node.get("$ref");
        if (ref == null) {
            return node;
        }
        JsonNode target = document;
        for (String part : ref.asText().substring(2).split("/")) {
            target = target.get(part);
        }
        return target;
    }
}
