package io.trunkgate.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Optional;

/**
 * One request to a gateway's admin API and what the command makes of its answer: the JSON body of a 2xx, or a
 * {@link CliFailure} with a message for people and the command's exit code.
 */
final class AdminCall {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    /** The parsed body and its text as it came. */
    record Answer(int status, JsonNode json, String body) {
    }

    private final URI base;
    private final Optional<String> token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

    AdminCall(URI base, Optional<String> token) {
        this.base = base;
        this.token = token;
    }

    Answer get(String path) {
        return send("GET", path);
    }

    boolean hasToken() {
        return token.isPresent();
    }

    /**
     * {@code method} on {@code path} (already encoded, relative to the API's address); every answer outside 2xx
     * becomes a failure, 422 (a refused reload: the caller prints its errors) and {@code alsoAnswers} excepted, and
     * so does a gateway out of reach.
     */
    Answer send(String method, String path, int... alsoAnswers) {
        URI uri = base.resolve(path);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .method(method, HttpRequest.BodyPublishers.noBody());
        token.ifPresent(t -> request.header("Authorization", "Bearer " + t));
        HttpResponse<String> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach the admin API at " + base
                    + ": connection refused (is the gateway running? --admin URL or --config names where it listens)");
        } catch (HttpConnectTimeoutException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach the admin API at " + base
                    + ": no connection within " + CONNECT_TIMEOUT.toSeconds() + " s");
        } catch (HttpTimeoutException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "the admin API at " + base + " did not answer within "
                    + REQUEST_TIMEOUT.toSeconds() + " s");
        } catch (IOException e) {
            throw new CliFailure(CliFailure.UNREACHABLE, "cannot reach the admin API at " + base + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CliFailure(CliFailure.UNREACHABLE, "interrupted");
        }
        int status = response.statusCode();
        JsonNode json = parse(response.body());
        if (status / 100 == 2 || status == 422 || java.util.Arrays.stream(alsoAnswers).anyMatch(a -> a == status)) {
            return new Answer(status, json, response.body());
        }
        String said = json != null && json.hasNonNull("error") ? json.get("error").asText() : response.body().strip();
        String what = method + " " + uri.getPath();
        throw switch (status) {
            case 401 -> new CliFailure(CliFailure.NOT_AUTHORIZED, what + ": 401 "
                    + (token.isEmpty() ? "no admin token given: set TRUNKGATE_ADMIN_TOKEN, use --token-file, or run"
                    + " this where the gateway wrote admin.token-file"
                    : "the admin token was refused (TRUNKGATE_ADMIN_TOKEN or --token-file)"));
            case 403 -> new CliFailure(CliFailure.NOT_AUTHORIZED, what + ": 403 " + said);
            default -> new CliFailure(CliFailure.REFUSED, what + ": " + status + " " + said);
        };
    }

    private static JsonNode parse(String body) {
        try {
            return body == null || body.isBlank() ? null : MAPPER.readTree(body);
        } catch (IOException notJson) {
            return null;
        }
    }
}
