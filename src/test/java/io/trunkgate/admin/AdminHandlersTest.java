package io.trunkgate.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.redisson.client.RedisTimeoutException;

/**
 * The admin server's handlers on a Netty {@link EmbeddedChannel}, without a socket or a gateway: the request
 * pipeline of {@link AdminServer} in front of a router with endpoints of the test's own. Authentication, JSON
 * replies, 404 and 405, failures of endpoints, malformed requests and the request deadline.
 */
class AdminHandlersTest {

    private static final String TOKEN = "s3cret";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The configured token, as a reload may change it. */
    private Optional<String> token = Optional.of(TOKEN);

    private final AdminRouter router = new AdminRouter()
            .route(HttpMethod.GET, "/api/things", request -> reply(Reply.ok(Map.of("things", List.of("a", "b")))))
            .route(HttpMethod.GET, AdminRoutes.pathPattern("/api/things/{id}"),
                    request -> reply(Reply.ok(Map.of("id", request.pathParameter()))))
            .route(HttpMethod.PUT, AdminRoutes.pathPattern("/api/things/{id}"),
                    request -> reply(Reply.ok(Map.of("put", request.pathParameter(),
                            "duration", String.valueOf(request.queryValue("duration"))))))
            .route(HttpMethod.DELETE, AdminRoutes.pathPattern("/api/things/{id}"),
                    request -> reply(Reply.ok(Map.of("deleted", request.pathParameter()))))
            .route(HttpMethod.GET, "/api/refused",
                    request -> CompletableFuture.failedFuture(new ApiException(HttpResponseStatus.BAD_REQUEST,
                            "duration must be positive")))
            .route(HttpMethod.GET, "/api/redis", request -> CompletableFuture.failedFuture(
                    new RedisTimeoutException("Command execution timeout for 10.1.2.3:6379 EVALSHA tg:secret-key")))
            .route(HttpMethod.GET, "/api/broken", request -> {
                throw new IllegalStateException("NullPointerException at internal.Secret");
            })
            .route(HttpMethod.GET, "/text", request -> reply(Reply.text("text/plain; charset=utf-8", "plain")));

    private CompletableFuture<Reply> reply(Reply reply) {
        return CompletableFuture.completedFuture(reply);
    }

    private EmbeddedChannel channel() {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.pipeline().addLast(AdminServer.requestHandlers(Duration.ofSeconds(5), new JsonReplyEncoder(),
                new MalformedRequestFilter(), new HostCheck("admin"), new BearerAuth(() -> token), router));
        return channel;
    }

    /** The raw response to a raw request on a connection of its own. */
    private Answer exchange(String request) {
        EmbeddedChannel channel = channel();
        channel.writeInbound(Unpooled.copiedBuffer(request, StandardCharsets.UTF_8));
        channel.runPendingTasks();
        StringBuilder raw = new StringBuilder();
        for (ByteBuf out = channel.readOutbound(); out != null; out = channel.readOutbound()) {
            raw.append(out.toString(StandardCharsets.UTF_8));
            out.release();
        }
        Answer answer = Answer.of(raw.toString());
        assertFalse(channel.isOpen(), "every answer closes its connection");
        return answer;
    }

    private Answer send(String method, String path, String authorization) {
        return exchange(method + " " + path + " HTTP/1.1\r\nHost: admin\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + "Content-Length: 0\r\n\r\n");
    }

    /** One HTTP response: its status, headers (lower-case names) and body. */
    private record Answer(int status, Map<String, String> headers, String body) {
        static Answer of(String raw) {
            int split = raw.indexOf("\r\n\r\n");
            assertTrue(split > 0, "a whole response: " + raw);
            String[] lines = raw.substring(0, split).split("\r\n");
            Map<String, String> headers = new java.util.HashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
            return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers, raw.substring(split + 4));
        }

        JsonNode json() throws Exception {
            assertEquals(Reply.JSON, headers.get("content-type"));
            return JSON.readTree(body);
        }
    }

    @Test
    void readsNeedNoTokenAndAnswerJson() throws Exception {
        token = Optional.empty();
        Answer answer = send("GET", "/api/things", null);
        assertEquals(200, answer.status());
        assertEquals("[\"a\",\"b\"]", answer.json().get("things").toString());
        assertEquals("no-store", answer.headers().get("cache-control"));
        assertEquals("close", answer.headers().get("connection"));
        assertEquals(String.valueOf(answer.body().length()), answer.headers().get("content-length"));
    }

    @Test
    void pathParameterAndQueryReachTheEndpoint() throws Exception {
        assertEquals("acme", send("GET", "/api/things/acme", null).json().get("id").asText());
        Answer put = send("PUT", "/api/things/acme?duration=10m", "Bearer " + TOKEN);
        assertEquals(200, put.status());
        assertEquals("acme", put.json().get("put").asText());
        assertEquals("10m", put.json().get("duration").asText());
    }

    @Test
    void changesWithoutTheTokenAre401() throws Exception {
        for (String authorization : new String[] {null, "Bearer wrong", "Basic " + TOKEN, "Bearer"}) {
            Answer answer = send("DELETE", "/api/things/acme", authorization);
            assertEquals(401, answer.status(), String.valueOf(authorization));
            assertEquals("Bearer realm=\"trunkgate\"", answer.headers().get("www-authenticate"));
            assertTrue(answer.json().get("error").asText().contains("Authorization: Bearer"));
        }
        assertEquals(200, send("DELETE", "/api/things/acme", "bearer " + TOKEN).status(),
                "the scheme is case-insensitive");
    }

    @Test
    void changesWithNoTokenConfiguredAre403() throws Exception {
        token = Optional.empty();
        Answer answer = send("PUT", "/api/things/acme", "Bearer " + TOKEN);
        assertEquals(403, answer.status());
        assertEquals(BearerAuth.NO_TOKEN, answer.json().get("error").asText());
    }

    @Test
    void aRotatedTokenCountsFromTheNextRequest() {
        assertEquals(200, send("PUT", "/api/things/acme", "Bearer " + TOKEN).status());
        token = Optional.of("rotated");
        assertEquals(401, send("PUT", "/api/things/acme", "Bearer " + TOKEN).status());
        assertEquals(200, send("PUT", "/api/things/acme", "Bearer rotated").status());
    }

    @Test
    void unknownPathIs404() throws Exception {
        Answer answer = send("GET", "/api/nothing", null);
        assertEquals(404, answer.status());
        assertEquals("no such path: /api/nothing", answer.json().get("error").asText());
    }

    @Test
    void methodThePathDoesNotTakeIs405WithAllow() throws Exception {
        Answer answer = send("POST", "/api/things/acme", "Bearer " + TOKEN);
        assertEquals(405, answer.status());
        assertEquals("GET, PUT, DELETE", answer.headers().get("allow"));
        assertTrue(answer.json().get("error").asText().startsWith("POST is not allowed on /api/things/acme"));
    }

    @Test
    void endpointsRefusalIsItsStatusAndMessage() throws Exception {
        Answer answer = send("GET", "/api/refused", null);
        assertEquals(400, answer.status());
        assertEquals("duration must be positive", answer.json().get("error").asText());
    }

    @Test
    void redisFailureIs503AndTellsNothingOfTheInternals() throws Exception {
        Answer answer = send("GET", "/api/redis", null);
        assertEquals(503, answer.status());
        String error = answer.json().get("error").asText();
        assertFalse(error.contains("10.1.2.3") || error.contains("EVALSHA") || error.contains("secret"), error);
    }

    @Test
    void otherFailureIs500AndTellsNothingOfTheInternals() throws Exception {
        Answer answer = send("GET", "/api/broken", null);
        assertEquals(500, answer.status());
        String error = answer.json().get("error").asText();
        assertFalse(error.contains("Secret") || error.contains("NullPointer"), error);
    }

    @Test
    void textRepliesGoAsTheyAre() {
        Answer answer = send("GET", "/text", null);
        assertEquals(200, answer.status());
        assertEquals("text/plain; charset=utf-8", answer.headers().get("content-type"));
        assertEquals("plain", answer.body());
    }

    @Test
    void malformedRequestIs400AndReachesNoEndpoint() throws Exception {
        for (String broken : List.of("broken header line", "X-No-Colon", "Content-Length: 1\r\nContent-Length: 2")) {
            Answer answer = exchange("DELETE /api/things/acme HTTP/1.1\r\nHost: admin\r\nAuthorization: Bearer "
                    + TOKEN + "\r\n" + broken + "\r\n\r\n");
            assertEquals(400, answer.status(), broken);
            assertTrue(answer.json().get("error").asText().startsWith("malformed HTTP request"), broken);
        }
        assertEquals(400, exchange("GARBAGE\r\nHost: admin\r\n\r\n").status());
    }

    @Test
    void bodyOverTheLimitIs413() {
        Answer answer = exchange("PUT /api/things/acme HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n"
                + "Authorization: Bearer " + TOKEN + "\r\nContent-Length: 70000\r\n\r\n{");
        assertEquals(413, answer.status());
    }

    @Test
    void connectionWithoutAWholeRequestIsClosedAtTheDeadline() throws Exception {
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.freezeTime(); // the channel's clock moves only by advanceTimeBy
        channel.pipeline().addLast(AdminServer.requestHandlers(Duration.ofMillis(200), new JsonReplyEncoder(),
                new MalformedRequestFilter(), new HostCheck("admin"), new BearerAuth(() -> token), router));
        channel.writeInbound(Unpooled.copiedBuffer("GET /api/things HTTP/1.1\r\nHo", StandardCharsets.UTF_8));
        channel.advanceTimeBy(199, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        assertTrue(channel.isOpen());
        channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
        channel.runPendingTasks();
        assertFalse(channel.isOpen(), "a request that trickles in is cut at the deadline");
        assertNull(channel.readOutbound());
    }
}
