package io.trunkgate.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.trunkgate.records.CallRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

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
    /**
     * Each carrier's and peer's meters and window, bound when it is configured or at its first call: replaces a
     * lookup in the registry per counter and histogram of every call (a builder, the meter's id and its name and
     * tags concatenated each time).
     */
    private final Bound<Subject> carriers;
    private final Bound<Subject> peers;

    /** Counts into {@code registry}; {@code clock} times the status page's window. */
    AnswerRatios(Clock clock, MeterRegistry registry) {
        this.clock = clock;
        this.carriers = new Bound<>(id -> new Subject(registry, "carrier", id));
        this.peers = new Bound<>(id -> new Subject(registry, "peer", id));
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
        return view(carriers.find(carrierId));
    }

    /** The peer's counts over the last {@link #WINDOW_MINUTES} minutes. */
    public Ratios peer(String peerId) {
        return view(peers.find(peerId));
    }

    /**
     * A call whose INVITE ended ({@code record}: as at its answer, or its final failure): each attempt counts for
     * its carrier, the call for its peer when it was admitted.
     */
    void count(CallRecord record) {
        List<CallRecord.Attempt> attempts = record.attempts();
        for (int i = 0; i < attempts.size(); i++) {
            CallRecord.Attempt attempt = attempts.get(i);
            int status = attempt.finalStatus();
            boolean answered = status / 100 == 2;
            Long pdd = attempt.ringingMs() != null ? attempt.ringingMs() : answered ? attempt.answerMs() : null;
            carriers.get(attempt.carrier()).count(minute(), status, effective(status, attempt.ringingMs() != null),
                    pdd, answered ? attempt.answerMs() : null);
        }
        if ("admitted".equals(record.admission()) && record.peer() != null) {
            int status = record.finalStatus();
            boolean answered = status / 100 == 2;
            Long pdd = record.pddMs() != null ? record.pddMs() : answered ? record.setupMs() : null;
            peers.get(record.peer()).count(minute(), status, effective(status, record.pddMs() != null), pdd,
                    answered ? record.setupMs() : null);
        }
    }

    /** Every series of this configured carrier at 0 (its meters bound from now on). */
    void declareCarrier(String id) {
        carriers.get(id);
    }

    /** Every series of this configured peer at 0 (its meters bound from now on). */
    void declarePeer(String id) {
        peers.get(id);
    }

    private static boolean effective(int status, boolean rang) {
        return status / 100 == 2 || REACHED_THE_CALLEE.contains(status) || rang;
    }

    /** Where {@code status} is in {@link #CLASSES}. */
    static int classIndex(int status) {
        return status >= 200 && status < 700 ? status / 100 - 2 : CLASSES.size() - 1;
    }

    static String statusClass(int status) {
        return CLASSES.get(classIndex(status));
    }

    static String codeLabel(int status) {
        if (status < 200 || status >= 700) {
            return "none";
        }
        return CODES.contains(status) ? Integer.toString(status) : "other";
    }

    private long minute() {
        return Math.floorDiv(clock.millis(), 60_000L);
    }

    private Ratios view(Subject subject) {
        return subject == null ? Window.EMPTY : subject.window.ratios(minute());
    }

    /** A carrier's or a peer's meters, registered once, and its window for the status page. */
    private static final class Subject {

        /** The codes with a label of their own, in order: a response's index in {@link #responses}. */
        private static final int[] LABELLED = CODES.stream().mapToInt(Integer::intValue).sorted().toArray();

        private final Counter attempts;
        private final Counter answered;
        private final Counter effective;
        /** By {@link #LABELLED} code, then {@code other} of each class (and {@code none}) by {@link #classIndex}. */
        private final Counter[] responses = new Counter[LABELLED.length + CLASSES.size()];
        private final Timer postDialDelay;
        private final Timer setup;
        private final Window window = new Window();

        Subject(MeterRegistry in, String kind, String id) {
            attempts = counter(in, kind, "attempts", id);
            answered = counter(in, kind, "answered", id);
            effective = counter(in, kind, "effective", id);
            for (int i = 0; i < LABELLED.length; i++) {
                int code = LABELLED[i];
                responses[i] = responses(in, kind, id, statusClass(code), Integer.toString(code));
            }
            for (int i = 0; i < CLASSES.size(); i++) {
                String statusClass = CLASSES.get(i);
                responses[LABELLED.length + i] = responses(in, kind, id, statusClass,
                        statusClass.equals("none") ? "none" : "other");
            }
            postDialDelay = postDialDelay(in, kind, id);
            setup = setup(in, kind, id);
        }

        void count(long minute, int status, boolean effective, Long pddMs, Long setupMs) {
            attempts.increment();
            int labelled = Arrays.binarySearch(LABELLED, status);
            responses[labelled >= 0 ? labelled : LABELLED.length + classIndex(status)].increment();
            if (status / 100 == 2) {
                answered.increment();
            }
            if (effective) {
                this.effective.increment();
            }
            if (pddMs != null) {
                postDialDelay.record(pddMs, TimeUnit.MILLISECONDS);
            }
            if (setupMs != null) {
                setup.record(setupMs, TimeUnit.MILLISECONDS);
            }
            window.add(minute, status, effective, pddMs, setupMs);
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
            at[CLASS_0 + classIndex(status)]++;
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
