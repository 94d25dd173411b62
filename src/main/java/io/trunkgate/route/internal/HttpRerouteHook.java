package io.trunkgate.route.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reroute hook behind HTTP: POSTs the reroute context as JSON and takes {@code {"carriers": [ids...]}} back.
 * The call waits at most {@code timeout}, and at most {@code maxConcurrent} requests are in flight; on timeout,
 * a full house, an error status, a failure or a reply that is not that JSON, the configured chain is used.
 * Each request's outcome ({@code ok}, {@code timeout}, {@code busy}, {@code error}, {@code bad_reply}) goes to
 * {@code outcomes}.
 */
public final class HttpRerouteHook implements RerouteHook {

    private static final Logger log = LoggerFactory.getLogger(HttpRerouteHook.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI url;
    private final Duration timeout;
    private final Semaphore slots;
    private final Consumer<String> outcomes;
    private final HttpClient client;

    public HttpRerouteHook(URI url, Duration timeout, int maxConcurrent, Consumer<String> outcomes) {
        this.url = url;
        this.timeout = timeout;
        this.slots = new Semaphore(maxConcurrent);
        this.outcomes = outcomes;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).build();
    }

    @Override
    public List<String> reroute(RerouteContext context) {
        if (!slots.tryAcquire()) {
            return fallback(context, "busy", "too many requests in flight");
        }
        CompletableFuture<HttpResponse<String>> reply = null;
        try {
            HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(context))).build();
            reply = client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
            HttpResponse<String> response = reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            if (response.statusCode() != 200) {
                return fallback(context, "error", "HTTP " + response.statusCode());
            }
            Optional<List<String>> carriers = carriers(response.body());
            if (carriers.isEmpty()) {
                return fallback(context, "bad_reply", "not {\"carriers\": [ids...]}");
            }
            outcomes.accept("ok");
            return carriers.get();
        } catch (TimeoutException e) {
            return fallback(context, "timeout", "no answer within " + timeout.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fallback(context, "error", "interrupted");
        } catch (ExecutionException e) {
            // The client's own request timeout and ours are the same length; whichever fires first, it is a timeout.
            if (e.getCause() instanceof HttpTimeoutException) {
                return fallback(context, "timeout", "no answer within " + timeout.toMillis() + " ms");
            }
            return fallback(context, "error", e.getCause() != null ? e.getCause().toString() : e.toString());
        } catch (java.io.IOException | RuntimeException e) {
            return fallback(context, "error", e.getCause() != null ? e.getCause().toString() : e.toString());
        } finally {
            if (reply != null) {
                reply.cancel(true);
            }
            slots.release();
        }
    }

    private static Optional<List<String>> carriers(String body) {
        try {
            JsonNode list = JSON.readTree(body).get("carriers");
            if (list == null || !list.isArray()) {
                return Optional.empty();
            }
            List<String> ids = new ArrayList<>();
            for (JsonNode id : list) {
                if (!id.isTextual()) {
                    return Optional.empty();
                }
                ids.add(id.asText());
            }
            return Optional.of(ids);
        } catch (java.io.IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private List<String> fallback(RerouteContext context, String outcome, String why) {
        outcomes.accept(outcome);
        log.info("call={} reroute-url {}: {}; the configured chain is used", context.callId(), outcome, why);
        return context.remaining();
    }
}
