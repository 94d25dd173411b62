package io.trunkgate.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.trunkgate.config.BuildInfo;
import io.trunkgate.records.CallRecord;
import io.trunkgate.testing.ManualTime;
import io.trunkgate.testing.Metrics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Answer ratios counted from call records, in /metrics and over the status page's window, on a test clock. */
class AnswerRatiosTest {

    private final ManualTime time = new ManualTime();
    private final GatewayMetrics metrics = new GatewayMetrics("gw", new BuildInfo("1", "x"), time.clock());

    @Test
    void everySeriesOfAConfiguredCarrierAndPeerIsThereAtZero() {
        metrics.configured(List.of("acme"), List.of("carrier-a"));
        String scrape = metrics.scrape();
        for (String name : List.of("trunkgate_carrier_attempts_total", "trunkgate_carrier_attempts_answered_total",
                "trunkgate_carrier_attempts_effective_total")) {
            assertEquals(0.0, value(scrape, name, Map.of("carrier", "carrier-a")), name);
        }
        for (String name : List.of("trunkgate_peer_calls_total", "trunkgate_peer_calls_answered_total",
                "trunkgate_peer_calls_effective_total")) {
            assertEquals(0.0, value(scrape, name, Map.of("peer", "acme")), name);
        }
        assertEquals(0.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-a", "class", "5xx", "code", "503")));
        assertEquals(0.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-a", "class", "none", "code", "none")));
        assertEquals(0.0, value(scrape, "trunkgate_peer_post_dial_delay_seconds_count", Map.of("peer", "acme")));
        assertEquals(0.0, value(scrape, "trunkgate_carrier_setup_seconds_count", Map.of("carrier", "carrier-a")));
    }

    @Test
    void attemptsAnswersFinalsAndDelaysPerCarrierAndPerPeer() {
        // answered after ringing 1.5 s, answer at 4 s
        metrics.callSetUp(call("acme", 200, 1_600L, 4_100L, attempt("carrier-a", 200, 1_500L, 4_000L)));
        // busy: reached the callee; then a call that failed over from a silent carrier to one refusing it 503
        metrics.callSetUp(call("acme", 486, null, null, attempt("carrier-a", 486, null, null)));
        metrics.callSetUp(call("acme", 503, null, null, attempt("carrier-a", 0, null, null),
                attempt("carrier-b", 503, null, null)));
        // rang, then the caller gave up: no answer, but the network reached the callee
        metrics.callSetUp(call("acme", 487, 900L, null, attempt("carrier-a", 487, 800L, null)));
        // a carrier's odd code is "other" in its class; a call refused at admission is no peer call
        metrics.callSetUp(call("acme", 499, null, null, attempt("carrier-a", 499, null, null)));
        metrics.callSetUp(refused("acme"));

        String scrape = metrics.scrape();
        Map<String, String> a = Map.of("carrier", "carrier-a");
        assertEquals(5.0, value(scrape, "trunkgate_carrier_attempts_total", a));
        assertEquals(1.0, value(scrape, "trunkgate_carrier_attempts_answered_total", a));
        assertEquals(3.0, value(scrape, "trunkgate_carrier_attempts_effective_total", a), "200, 486, 487 after 180");
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-a", "class", "none", "code", "none")), "the silent attempt");
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-a", "class", "4xx", "code", "other")), "499");
        assertEquals(1.0, value(scrape, "trunkgate_carrier_responses_total",
                Map.of("carrier", "carrier-b", "class", "5xx", "code", "503")));
        assertEquals(2.0, value(scrape, "trunkgate_carrier_post_dial_delay_seconds_count", a));
        assertEquals(2.3, value(scrape, "trunkgate_carrier_post_dial_delay_seconds_sum", a), 1e-9);
        assertEquals(1.0, value(scrape, "trunkgate_carrier_post_dial_delay_seconds_bucket",
                Map.of("carrier", "carrier-a", "le", "1.0")), "800 ms within 1 s, 1.5 s not");
        assertEquals(4.0, value(scrape, "trunkgate_carrier_setup_seconds_sum", a), 1e-9);
        Map<String, String> acme = Map.of("peer", "acme");
        assertEquals(5.0, value(scrape, "trunkgate_peer_calls_total", acme), "admitted calls only");
        assertEquals(1.0, value(scrape, "trunkgate_peer_calls_answered_total", acme));
        assertEquals(3.0, value(scrape, "trunkgate_peer_calls_effective_total", acme));
        assertEquals(4.1, value(scrape, "trunkgate_peer_setup_seconds_sum", acme), 1e-9);

        AnswerRatios.Ratios carrierA = metrics.answers().carrier("carrier-a");
        assertEquals(5, carrierA.attempts());
        assertEquals(0.2, carrierA.asr(), 1e-9);
        assertEquals(0.6, carrierA.ner(), 1e-9);
        assertEquals(1150L, carrierA.pddMs());
        assertEquals(4000L, carrierA.setupMs());
        assertEquals(Map.of("2xx", 1L, "3xx", 0L, "4xx", 3L, "5xx", 0L, "6xx", 0L, "none", 1L), carrierA.finals());
        assertEquals(1, metrics.answers().carrier("carrier-b").attempts());
        assertEquals(0.0, metrics.answers().carrier("carrier-b").asr(), 1e-9);
    }

    @Test
    void theStatusPagesWindowKeepsTheLastFifteenMinutes() {
        metrics.callSetUp(call("acme", 503, null, null, attempt("carrier-a", 503, null, null)));
        time.advance(Duration.ofMinutes(10));
        metrics.callSetUp(call("acme", 200, null, 2_000L, attempt("carrier-a", 200, null, 1_900L)));
        assertEquals(2, metrics.answers().carrier("carrier-a").attempts());
        assertEquals(0.5, metrics.answers().peer("acme").asr(), 1e-9);

        time.advance(Duration.ofMinutes(6));
        AnswerRatios.Ratios later = metrics.answers().carrier("carrier-a");
        assertEquals(1, later.attempts(), "the 503 of 16 minutes ago is out of the window");
        assertEquals(1.0, later.asr(), 1e-9);
        assertEquals(1900L, later.pddMs(), "answered without a 180: the answer is the post-dial delay");

        time.advance(Duration.ofMinutes(15));
        AnswerRatios.Ratios none = metrics.answers().carrier("carrier-a");
        assertEquals(0, none.attempts());
        assertNull(none.asr());
        assertNull(none.pddMs());
        assertEquals(0, metrics.answers().carrier("never-called").attempts());
    }

    @Test
    void callsOfTheWarmUpCountNowhere() {
        metrics.warmingUp();
        metrics.callSetUp(call("acme", 200, null, 100L, attempt("carrier-a", 200, null, 90L)));
        metrics.ready();
        assertEquals(0, metrics.answers().carrier("carrier-a").attempts());
        assertEquals(0.0, Metrics.value(metrics.scrape(), "trunkgate_carrier_attempts_total",
                Map.of("carrier", "carrier-a")).orElse(0.0));
    }

    private static double value(String scrape, String name, Map<String, String> labels) {
        return Metrics.value(scrape, name, labels).orElseThrow(() -> new AssertionError(name + labels));
    }

    private static CallRecord.Attempt attempt(String carrier, int status, Long ringingMs, Long answerMs) {
        return new CallRecord.Attempt(carrier, "127.0.0.1:5080/udp", 0, Instant.EPOCH, status, 1L, ringingMs,
                answerMs, null);
    }

    private CallRecord call(String peer, int status, Long pddMs, Long setupMs, CallRecord.Attempt... attempts) {
        return record(peer, "admitted", status, pddMs, setupMs, List.of(attempts));
    }

    private CallRecord refused(String peer) {
        return record(peer, "rejected", 503, null, 1L, List.of());
    }

    private CallRecord record(String peer, String admission, int status, Long pddMs, Long setupMs,
                              List<CallRecord.Attempt> attempts) {
        List<String> carriers = new ArrayList<>();
        attempts.forEach(a -> carriers.add(a.carrier()));
        return new CallRecord("call", "gw", CallRecord.Caller.at("127.0.0.1:5060", "tag", 1L), peer, null, admission,
                null, List.of(), carriers, List.of(), attempts, 0, time.clock().instant(), null, pddMs,
                setupMs == null ? 10L : setupMs, status / 100 == 2 ? time.clock().instant() : null, null, 0, status,
                null, null, null, null);
    }
}
