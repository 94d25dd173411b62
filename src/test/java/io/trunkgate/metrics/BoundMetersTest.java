package io.trunkgate.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trunkgate.config.BuildInfo;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.records.CallRecord;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.Metrics;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The meters each peer, carrier and reason is bound to once count what the registry's own meters would: for the
 * configured ones, for a peer and carrier a reload adds, for one never configured, and across the warm-up (whose
 * meters count nowhere) and the readiness after it.
 */
class BoundMetersTest {

    private final ManualTime time = new ManualTime();
    private final GatewayMetrics metrics = new GatewayMetrics("gw", new BuildInfo("1", "x"), time.clock());

    @Test
    void aPeerAndACarrierAddedByAReloadCountFromTheirFirstCallBesideThoseConfiguredBefore() {
        metrics.configured(List.of("acme"), List.of("carrier-a"));
        call("acme", "carrier-a", 200);
        call("acme", "carrier-a", 486);

        metrics.configured(List.of("acme", "beta"), List.of("carrier-a", "carrier-b"));
        String reloaded = metrics.scrape();
        assertEquals(0.0, value(reloaded, "trunkgate_calls_admitted_total", Map.of("peer", "beta")));
        assertEquals(0.0, value(reloaded, "trunkgate_carrier_attempts_total", Map.of("carrier", "carrier-b")));
        call("beta", "carrier-b", 200);
        call("beta", "carrier-b", 503);
        call("beta", "carrier-b", 503);
        call("acme", "carrier-a", 200);
        metrics.callRejected("beta", "limited");
        metrics.callShed("beta", "overload");

        String scrape = metrics.scrape();
        assertEquals(3.0, value(scrape, "trunkgate_calls_admitted_total", Map.of("peer", "acme")));
        assertEquals(3.0, value(scrape, "trunkgate_calls_admitted_total", Map.of("peer", "beta")));
        assertEquals(3.0, value(scrape, "trunkgate_carrier_attempts_total", Map.of("carrier", "carrier-a")));
        assertEquals(3.0, value(scrape, "trunkgate_carrier_attempts_total", Map.of("carrier", "carrier-b")));
        assertEquals(2.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-b", "class", "5xx", "code", "503")));
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-a", "class", "4xx", "code", "486")));
        assertEquals(2.0, value(scrape, "trunkgate_peer_calls_answered_total", Map.of("peer", "acme")));
        assertEquals(1.0, value(scrape, "trunkgate_peer_calls_answered_total", Map.of("peer", "beta")));
        assertEquals(3.0, value(scrape, "trunkgate_pacing_delay_seconds_count", Map.of("carrier", "carrier-b")));
        assertEquals(0.3, value(scrape, "trunkgate_pacing_delay_seconds_sum", Map.of("carrier", "carrier-b")), 1e-9);
        assertEquals(3.0, value(scrape, "trunkgate_admission_to_send_seconds_count", Map.of("carrier", "carrier-a")));
        assertEquals(1.0, value(scrape, "trunkgate_calls_rejected_total", Map.of("peer", "beta", "reason", "limited")));
        assertEquals(1.0, value(scrape, "trunkgate_calls_shed_total", Map.of("peer", "beta", "reason", "overload")));
        assertEquals(3, metrics.answers().carrier("carrier-b").attempts());
        assertEquals(1.0 / 3, metrics.answers().peer("beta").asr(), 1e-9);
    }

    @Test
    void aPeerAndACarrierNeverConfiguredCountFromTheirFirstCall() {
        metrics.configured(List.of("acme"), List.of("carrier-a"));
        call("stray", "carrier-x", 200);
        call("stray", "carrier-x", 200);
        metrics.unknownSource();
        metrics.unknownSource();

        String scrape = metrics.scrape();
        assertEquals(2.0, value(scrape, "trunkgate_calls_admitted_total", Map.of("peer", "stray")));
        assertEquals(2.0, value(scrape, "trunkgate_carrier_attempts_answered_total", Map.of("carrier", "carrier-x")));
        assertEquals(2.0, value(scrape, "trunkgate_calls_rejected_total",
                Map.of("peer", "", "reason", GatewayMetrics.UNKNOWN_SOURCE)));
    }

    @Test
    void whatIsCountedWhileWarmingUpCountsNowhereAndWhatFollowsCountsOnce() {
        metrics.configured(List.of("acme"), List.of("carrier-a"));
        AdmissionLimiter limiter = metrics.timed(request -> CompletableFuture.completedFuture(
                (AdmissionDecision) null));
        metrics.warmingUp();
        call("acme", "carrier-a", 200);
        limiter.admit(null);
        metrics.requestReceived("INVITE");
        metrics.requestRefused("unknown_dialog");
        metrics.callShed("acme", "overload");
        metrics.ready();
        call("acme", "carrier-a", 200);
        limiter.admit(null);
        metrics.requestReceived("INVITE");
        metrics.requestRefused("unknown_dialog");

        String scrape = metrics.scrape();
        assertEquals(1.0, value(scrape, "trunkgate_calls_admitted_total", Map.of("peer", "acme")));
        assertEquals(1.0, value(scrape, "trunkgate_carrier_attempts_total", Map.of("carrier", "carrier-a")));
        assertEquals(1.0, value(scrape, "trunkgate_pacing_delay_seconds_count", Map.of("carrier", "carrier-a")));
        assertEquals(1.0, value(scrape, "trunkgate_redis_latency_seconds_count", Map.of("op", "admit")));
        assertEquals(1.0, value(scrape, "trunkgate_sip_requests_total", Map.of("method", "INVITE")));
        assertEquals(1.0, value(scrape, "trunkgate_sip_requests_refused_total", Map.of("reason", "unknown_dialog")));
        assertEquals(1.0, value(scrape, "trunkgate_calls_shed_total", Map.of("peer", "acme", "reason", "overload")),
                "shed calls count while warming up too");
        assertEquals(1, metrics.answers().peer("acme").attempts());
    }

    /** One admitted call of {@code peer} through {@code carrier}, ended with {@code status}, as the proxy counts it. */
    private void call(String peer, String carrier, int status) {
        metrics.callAdmitted(peer);
        metrics.admissionToSend(carrier, Duration.ofNanos(700_000));
        metrics.callSent(carrier, Duration.ofMillis(100));
        boolean answered = status / 100 == 2;
        CallRecord.Attempt attempt = new CallRecord.Attempt(carrier, "127.0.0.1:5080/udp", 100, Instant.EPOCH,
                status, 5L, null, answered ? 900L : null, null);
        metrics.callSetUp(new CallRecord("call", "gw", CallRecord.Caller.at("127.0.0.1:5060", "tag", 1L), peer,
                null, "admitted", null, List.of(), List.of(carrier), List.of(), List.of(attempt), 100,
                time.clock().instant(), null, null, 1_000L, answered ? time.clock().instant() : null, null, 0, status,
                null, null, null, null));
    }

    private static double value(String scrape, String name, Map<String, String> labels) {
        return Metrics.value(scrape, name, labels).orElseThrow(() -> new AssertionError(name + labels));
    }
}
