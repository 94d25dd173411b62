package io.trunkgate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.trunkgate.records.CallRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How carriers and peers answer calls: per carrier each INVITE sent to it (an attempt), per peer each call it placed
 * that was admitted; counted when the call's INVITE ends (answered, or failed), from its record. Counters and
 * histograms in Prometheus (ASR and NER are ratios of their rates: docs/metrics.md), and for the status page the
 * same counts over the last {@link #WINDOW_MINUTES} minutes.
 *
 * <p>NER (network effectiveness ratio, ITU-T E.425) counts as effective what reached the callee: an answer, busy
 * ({@code 486}, {@code 600}), a decline ({@code 603}), or a 180/183 before the call ended unanswered (ringing, no
 * answer).
 */
public final class AnswerRatios {

    /** The status page's window. */
    public static final int WINDOW_MINUTES = 15;

    /** Final response classes: {@code none} for an attempt that got none (silence, or the call ended first). */
    static final List<String> CLASSES = List.of("2xx", "3xx", "4xx", "5xx", "6xx", "none");
    /** Codes that get a label of their own; any other is {@code other} within its class. */
    static final Set<Integer> CODES = Set.of(200, 302, 403, 404, 408, 480, 484, 486, 487, 488, 500, 502, 503, 504,
            600, 603);
    private static final Set<Integer> REACHED_THE_CALLEE = Set.of(486, 600, 603);

    private static final Duration[] PDD_BUCKETS = {Duration.ofMillis(100), Duration.ofMillis(250),
            Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3),
            Duration.ofSeconds(5), Duration.ofSeconds(8), Duration.ofSeconds(13), Duration.ofSeconds(20),
            Duration.ofSeconds(30)};
    private static final Duration[] SETUP_BUCKETS = {Duration.ofSeconds(1), Duration.ofSeconds(2),
            Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(15), Duration.ofSeconds(20),
            Duration.ofSeconds(30), Duration.ofSeconds(45), Duration.ofSeconds(60), Duration.ofSeconds(90),
            Duration.ofSeconds(120)};

    private final Clock clock;
    private final Map<String, Window> windows = new ConcurrentHashMap<>();

    public AnswerRatios(Clock clock) {
        this.clock = clock;
    }

    /**
     * What this gateway's carrier and peer answered over the last minutes, for people.
     *
     * @param attempts  INVITEs sent to the carrier / admitted calls of the peer that ended their INVITE
     * @param answered  of them, answered (2xx)
     * @param effective of them, reaching the callee (NER's numerator)
     * @param asr       answered / attempts, null without attempts
     * @param ner       effective / attempts, null without attempts
     * @param pddMs     mean post-dial delay (to the first 180/183, or the answer without one), null without any
     * @param setupMs   mean time to the answer of answered ones, null without any
     * @param finals    attempts by final response class, {@code none} for no final response
     */
    public record Ratios(long attempts, long answered, long effective, Double asr, Double ner, Long pddMs,
                         Long setupMs, Map<String, Long> finals) {
    }

    /** The carrier's counts over the last {@link #WINDOW_MINUTES} minutes. */
    public Ratios carrier(String carrierId) {
        return view("carrier:" + carrierId);
    }

    /** The peer's counts over the last {@link #WINDOW_MINUTES} minutes. */
    public Ratios peer(String peerId) {
        return view("peer:" + peerId);
    }

    /**
     * A call whose INVITE ended ({@code record}: as at its answer, or its final failure): each attempt counts for
     * its carrier, the call for its peer when it was admitted. Meters are registered in {@code in}.
     */
    void count(MeterRegistry in, CallRecord record) {
        for (CallRecord.Attempt attempt : record.attempts()) {
            int status = attempt.finalStatus();
            boolean answered = status / 100 == 2;
            Long pdd = attempt.ringingMs() != null ? attempt.ringingMs() : answered ? attempt.answerMs() : null;
            count(in, "carrier", attempt.carrier(), status, effective(status, attempt.ringingMs() != null), pdd,
                    answered ? attempt.answerMs() : null);
        }
        if ("admitted".equals(record.admission()) && record.peer() != null) {
            int status = record.finalStatus();
            boolean answered = status / 100 == 2;
            Long pdd = record.pddMs() != null ? record.pddMs() : answered ? record.setupMs() : null;
            count(in, "peer", record.peer(), status, effective(status, record.pddMs() != null), pdd,
                    answered ? record.setupMs() : null);
        }
    }

    private void count(MeterRegistry in, String kind, String id, int status, boolean effective, Long pddMs,
                       Long setupMs) {
        boolean answered = status / 100 == 2;
        counter(in, kind, "attempts", id).increment();
        responses(in, kind, id, statusClass(status), codeLabel(status)).increment();
        if (answered) {
            counter(in, kind, "answered", id).increment();
        }
        if (effective) {
            counter(in, kind, "effective", id).increment();
        }
        if (pddMs != null) {
            postDialDelay(in, kind, id).record(Duration.ofMillis(pddMs));
        }
        if (setupMs != null) {
            setup(in, kind, id).record(Duration.ofMillis(setupMs));
        }
        windows.computeIfAbsent(kind + ":" + id, key -> new Window())
                .add(minute(), status, effective, pddMs, setupMs);
    }

    /** Every series of these peers and carriers at 0. */
    static void declare(MeterRegistry in, String kind, String id) {
        for (String what : List.of("attempts", "answered", "effective")) {
            counter(in, kind, what, id);
        }
        for (String statusClass : CLASSES) {
            responses(in, kind, id, statusClass, statusClass.equals("none") ? "none" : "other");
        }
        for (int code : CODES) {
            responses(in, kind, id, statusClass(code), codeLabel(code));
        }
        postDialDelay(in, kind, id);
        setup(in, kind, id);
    }

    private static boolean effective(int status, boolean rang) {
        return status / 100 == 2 || REACHED_THE_CALLEE.contains(status) || rang;
    }

    static String statusClass(int status) {
        return status >= 200 && status < 700 ? status / 100 + "xx" : "none";
    }

    static String codeLabel(int status) {
        if (status < 200 || status >= 700) {
            return "none";
        }
        return CODES.contains(status) ? Integer.toString(status) : "other";
    }

    /** trunkgate_carrier_attempts_total, trunkgate_peer_calls_answered_total, ... */
    private static Counter counter(MeterRegistry in, String kind, String what, String id) {
        String unit = kind.equals("carrier") ? "attempts" : "calls";
        String name = "trunkgate." + kind + "." + unit + (what.equals("attempts") ? "" : "." + what);
        String of = kind.equals("carrier") ? "INVITEs sent to the carrier" : "admitted calls of the peer";
        String description = switch (what) {
            case "attempts" -> of + " whose INVITE ended";
            case "answered" -> of + " answered (2xx)";
            default -> of + " that reached the callee: answered, busy, declined, or rang";
        };
        return Counter.builder(name).description(description).tag(kind, id).register(in);
    }

    private static Counter responses(MeterRegistry in, String kind, String id, String statusClass, String code) {
        return Counter.builder("trunkgate." + kind + ".responses")
                .description(kind.equals("carrier") ? "Final responses of the carrier to INVITEs, by class and code"
                        : "Final responses to the peer's admitted calls, by class and code")
                .tags(kind, id, "class", statusClass, "code", code).register(in);
    }

    private static Timer postDialDelay(MeterRegistry in, String kind, String id) {
        return Timer.builder("trunkgate." + kind + ".post.dial.delay")
                .description(kind.equals("carrier") ? "From the INVITE sent to the carrier to its first 180/183"
                        + " (or its answer without one)" : "From the peer's INVITE to the first 180/183 relayed"
                        + " (or the answer without one)")
                .tag(kind, id).serviceLevelObjectives(PDD_BUCKETS).register(in);
    }

    private static Timer setup(MeterRegistry in, String kind, String id) {
        return Timer.builder("trunkgate." + kind + ".setup")
                .description(kind.equals("carrier") ? "From the INVITE sent to the carrier to its 2xx"
                        : "From the peer's INVITE to the 2xx relayed")
                .tag(kind, id).serviceLevelObjectives(SETUP_BUCKETS).register(in);
    }

    private long minute() {
        return Math.floorDiv(clock.millis(), 60_000L);
    }

    private Ratios view(String key) {
        Window window = windows.get(key);
        return window == null ? Window.EMPTY : window.ratios(minute());
    }

    /** One carrier's or peer's counts per minute, the last {@link #WINDOW_MINUTES} of them. */
    private static final class Window {

        static final Ratios EMPTY = new Ratios(0, 0, 0, null, null, null, null, zeroFinals());

        private final long[] minutes = new long[WINDOW_MINUTES];
        private final long[][] counts = new long[WINDOW_MINUTES][];

        /** attempts, answered, effective, pdd sum, pdd count, setup sum, setup count, then one per class. */
        private static final int ATTEMPTS = 0;
        private static final int ANSWERED = 1;
        private static final int EFFECTIVE = 2;
        private static final int PDD_SUM = 3;
        private static final int PDD_COUNT = 4;
        private static final int SETUP_SUM = 5;
        private static final int SETUP_COUNT = 6;
        private static final int CLASS_0 = 7;

        synchronized void add(long minute, int status, boolean effective, Long pddMs, Long setupMs) {
            long[] at = bucket(minute);
            at[ATTEMPTS]++;
            if (status / 100 == 2) {
                at[ANSWERED]++;
            }
            if (effective) {
                at[EFFECTIVE]++;
            }
            if (pddMs != null) {
                at[PDD_SUM] += pddMs;
                at[PDD_COUNT]++;
            }
            if (setupMs != null) {
                at[SETUP_SUM] += setupMs;
                at[SETUP_COUNT]++;
            }
            at[CLASS_0 + CLASSES.indexOf(statusClass(status))]++;
        }

        private long[] bucket(long minute) {
            int slot = (int) Math.floorMod(minute, (long) WINDOW_MINUTES);
            if (counts[slot] == null || minutes[slot] != minute) {
                counts[slot] = new long[CLASS_0 + CLASSES.size()];
                minutes[slot] = minute;
            }
            return counts[slot];
        }

        synchronized Ratios ratios(long minute) {
            long[] sum = new long[CLASS_0 + CLASSES.size()];
            for (int slot = 0; slot < WINDOW_MINUTES; slot++) {
                if (counts[slot] != null && minute - minutes[slot] < WINDOW_MINUTES && minutes[slot] <= minute) {
                    for (int i = 0; i < sum.length; i++) {
                        sum[i] += counts[slot][i];
                    }
                }
            }
            Map<String, Long> finals = new LinkedHashMap<>();
            for (int i = 0; i < CLASSES.size(); i++) {
                finals.put(CLASSES.get(i), sum[CLASS_0 + i]);
            }
            long attempts = sum[ATTEMPTS];
            return new Ratios(attempts, sum[ANSWERED], sum[EFFECTIVE],
                    attempts == 0 ? null : (double) sum[ANSWERED] / attempts,
                    attempts == 0 ? null : (double) sum[EFFECTIVE] / attempts,
                    sum[PDD_COUNT] == 0 ? null : sum[PDD_SUM] / sum[PDD_COUNT],
                    sum[SETUP_COUNT] == 0 ? null : sum[SETUP_SUM] / sum[SETUP_COUNT], finals);
        }

        private static Map<String, Long> zeroFinals() {
            Map<String, Long> finals = new LinkedHashMap<>();
            CLASSES.forEach(c -> finals.put(c, 0L));
            return finals;
        }
    }
}
