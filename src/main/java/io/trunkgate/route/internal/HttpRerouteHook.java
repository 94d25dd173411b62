package io.trunkgate.route.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trunkgate.route.RerouteContext;
import io.trunkgate.route.RerouteHook;
import io.trunkgate.throttle.LogFields;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reroute hook behind HTTP: POSTs the reroute context as JSON and takes {@code {"carriers": [ids...]}} back.
 * No thread waits for the answer ({@link #rerouteAsync}): the call goes on on {@code executor} (where the HTTP
 * client also does its work) when it comes, or at {@code timeout} (timed on {@code timers}). The JDK's client
 * completes its replies on a pool of its own (on fewer than three cores, a new thread for each reply), so the call is
 * handed from there to the gateway's thread. At most {@code maxConcurrent} requests are in flight; on timeout,
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
    private final Executor executor;
    private final ScheduledExecutorService timers;

    public HttpRerouteHook(URI url, Duration timeout, int maxConcurrent, Consumer<String> outcomes, Executor executor,
                           ScheduledExecutorService timers) {
        this.url = url;
        this.timeout = timeout;
        this.slots = new Semaphore(maxConcurrent);
        this.outcomes = outcomes;
        this.client = HttpClient.newBuilder().connectTimeout(timeout).executor(executor).build();
        this.executor = executor;
        this.timers = timers;
    }

    /** Waits for {@link #rerouteAsync}'s answer: for callers that may block (the gateway calls rerouteAsync). */
    @Override
    public List<String> reroute(RerouteContext context) {
        return rerouteAsync(context).toCompletableFuture().join();
    }

    @Override
    public CompletionStage<List<String>> rerouteAsync(RerouteContext context) {
        if (!slots.tryAcquire()) {
            return CompletableFuture.completedFuture(fallback(context, "busy", "too many requests in flight"));
        }
        CompletableFuture<HttpResponse<String>> reply;
        try {
            HttpRequest request = HttpRequest.newBuilder(url).timeout(timeout)
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(context))).build();
            reply = client.sendAsync(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException | RuntimeException e) {
            slots.release();
            return CompletableFuture.completedFuture(fallback(context, "error", e.toString()));
        }
        // The request's own timeout starts once connected; this one bounds the whole wait, and cancelling the reply
        // aborts the exchange.
        CompletableFuture<HttpResponse<String>> bounded = reply.copy();
        ScheduledFuture<?> deadline = timeOut(bounded);
        return bounded.handleAsync((response, error) -> {
            if (deadline != null) {
                deadline.cancel(false);
            }
            reply.cancel(true);
            slots.release();
            Throwable cause = error instanceof CompletionException && error.getCause() != null
                    ? error.getCause() : error;
            if (cause instanceof TimeoutException || cause instanceof HttpTimeoutException) {
                return fallback(context, "timeout", "no answer within " + timeout.toMillis() + " ms");
            }
            if (cause != null) {
                return fallback(context, "error", cause.toString());
            }
            if (response.statusCode() != 200) {
                return fallback(context, "error", "HTTP " + response.statusCode());
            }
            Optional<List<String>> carriers = carriers(response.body());
            if (carriers.isEmpty()) {
                return fallback(context, "bad_reply", "not {\"carriers\": [ids...]}");
            }
            outcomes.accept("ok");
            return carriers.get();
        }, executor);
    }

    /**
     * Fails {@code reply} at the timeout; null when the timers are stopped (the gateway is closing: the request's own
     * timeout still ends the wait).
     */
    private ScheduledFuture<?> timeOut(CompletableFuture<?> reply) {
        try {
            return timers.schedule(() -> reply.completeExceptionally(new TimeoutException()), timeout.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            return null;
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
        log.info("call={} reroute-url {}: {}; the configured chain is used",
                LogFields.value(context.callId()), outcome, why);
        return context.remaining();
    }
}
