package io.trunkgate.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A plain HTTP client for a gateway's admin server. */
public final class AdminClient {

    /** One answer: status, body, and the body as JSON when it is JSON. */
    public record Answer(int status, String body, HttpResponse<String> response) {
        public JsonNode json() {
            try {
                return MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError("not JSON (" + status + "): " + body, e);
            }
        }

        public String header(String name) {
            return response.headers().firstValue(name).orElse(null);
        }
    }

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;

    public AdminClient(InetSocketAddress address) {
        this.base = "http://127.0.0.1:" + address.getPort();
    }

    public String base() {
        return base;
    }

    public Answer get(String path) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(base + path)).GET(), null);
    }

    /** {@code method} with an optional body and an optional bearer token (null: no Authorization header). */
    public Answer send(String method, String path, String body, String token) throws Exception {
        HttpRequest.BodyPublisher publisher = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body);
        return send(HttpRequest.newBuilder(URI.create(base + path)).method(method, publisher), token);
    }

    private Answer send(HttpRequest.Builder request, String token) throws Exception {
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body(), response);
    }
}
