package io.trunkgate.whatif;

import io.trunkgate.config.CarrierConfig;
import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.ReplayAdmission;
import io.trunkgate.limit.Scope;
import io.trunkgate.pace.ReplayPacing;
import io.trunkgate.pace.Reservation;
import io.trunkgate.redis.RedisConnection;
import io.trunkgate.redis.RedisRuntime;
import io.trunkgate.runtime.ActiveConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Replays recorded calls through a configuration: each call, in the order of its arrival, is admitted or refused by
 * lua/admit.lua on a scratch redis-server whose script clock is set to the call's arrival time, and an admitted call
 * goes through its carriers the same way (its chain by the number it was routed on): at a carrier with a
 * max-concurrent cap it takes a lease through lua/take-lease.lua, then its slot through lua/pace.lua; a carrier full
 * or a slot beyond max-wait moves it to the next carrier, and so does an answer the carrier's {@code failover-on}
 * lists (the answer the record has from that carrier, else the record's final carrier's). A call holds its leases
 * under its peer's, group's and carrier's caps from its admission until it ended (per the record; at a carrier it
 * left on its answer, until the record's next attempt), so the caps count the calls in progress as they did, and a
 * day of records replays in minutes. Calls whose recorded decision the scripts cannot reproduce are not replayed,
 * and counted by reason: calls shed before admission, calls an operator block refused (a block is set through the
 * admin API, not in a configuration), calls decided by the Redis-down policy.
 */
public final class WhatIf {

    /** Prefix of the keys on the scratch server. */
    private static final String PREFIX = "what-if";
    /** Calls sent to the scratch server in one pipelined round trip. */
    private static final int BATCH = 2000;
    private static final String CAP = " max-concurrent";
    private static final String REDIS_DOWN = "Redis was unreachable: decided by admission.redis-down";

    private WhatIf() {
    }

    /** Replays the calls of {@code records} that arrived in [{@code from}, {@code to}) through {@code config}. */
    public static WhatIfReport replay(GatewayConfig config, List<Path> records, Optional<Instant> from,
                                      Optional<Instant> to) throws IOException {
        RecordsFile.Contents contents = RecordsFile.read(records, from, to);
        List<RecordedCall> calls = new ArrayList<>(contents.calls());
        // in the order Redis decided them, at the times it did: the windows count as they counted
        calls.sort(Comparator.comparingLong(RecordedCall::decidedMicros));
        RedisConnection scratch = new RedisConnection(RedisConnection.Mode.EMBEDDED, List.of(), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(10), 0);
        try (RedisRuntime redis = RedisRuntime.open(scratch, null)) {
            Tally tally = new Tally(new ActiveConfig(config, 1), ReplayAdmission.on(redis.client(), PREFIX),
                    ReplayPacing.on(redis.client(), PREFIX), new DifferenceCauses(calls));
            for (int first = 0; first < calls.size(); first += BATCH) {
                tally.replay(calls.subList(first, Math.min(calls.size(), first + BATCH)));
            }
            return tally.report(contents.broken());
        }
    }

    /** The figures as calls are replayed, a batch at a time. */
    private static final class Tally {
        private final ActiveConfig config;
        private final ReplayAdmission admission;
        private final ReplayPacing pacing;
        private final Map<String, PeerTally> peers = new TreeMap<>();
        private final Map<String, CarrierTally> carriers = new TreeMap<>();
        private final Map<String, CapTally> caps = new TreeMap<>();
        private final DifferenceCauses causes;
        private final List<String> differences = new ArrayList<>();
        private final Map<String, Integer> differencesBy = new TreeMap<>();
        /** By scope ("peer:a", "group:g"), the last call whose decision differs. */
        private final Map<String, RecordedCall> lastDifference = new HashMap<>();
        private final Map<String, Integer> notReplayed = new TreeMap<>();

        /** Admitted calls routed together arrived within this much time: half the shortest max-wait, at least 1 ms. */
        private final long routeSpanMicros;

        Tally(ActiveConfig config, ReplayAdmission admission, ReplayPacing pacing, DifferenceCauses causes) {
            this.config = config;
            this.causes = causes;
            this.admission = admission;
            this.pacing = pacing;
            this.routeSpanMicros = Math.max(1000, config.routes().carrierIds().stream()
                    .flatMap(id -> config.routes().carrier(id).stream())
                    .mapToLong(c -> c.maxWait().toNanos() / 1000).min().orElse(0) / 2);
        }

        /** Replays {@code calls} (in order of arrival): their admission in one round trip, then their carriers. */
        void replay(List<RecordedCall> calls) {
            List<RecordedCall> replayed = new ArrayList<>();
            List<PeerConfig> peersOf = new ArrayList<>();
            List<AdmissionRequest> requests = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            List<Long> leases = new ArrayList<>();
            for (RecordedCall call : calls) {
                recordedAtCarriers(call);
                recordedOverCaps(call);
                Optional<String> skip = unreproducible(call);
                Optional<PeerConfig> peer = config.peers().find(call.source())
                        .or(() -> config.peers().withCredentials(call.peer(), call.source()));
                if (skip.isEmpty() && peer.isEmpty()) {
                    skip = Optional.of("no peer of this configuration matches the source");
                }
                if (skip.isPresent()) {
                    notReplayed.merge(skip.get(), 1, Integer::sum);
                    continue;
                }
                replayed.add(call);
                peersOf.add(peer.get());
                requests.add(config.admissionRequest(peer.get(), call.callKey()));
                times.add(call.decidedMicros());
                leases.add(call.upMs());
            }
            List<AdmissionDecision> decisions = requests.isEmpty() ? List.of()
                    : admission.admitAt(requests, times, leases);
            List<Routed> admitted = new ArrayList<>();
            for (int i = 0; i < decisions.size(); i++) {
                RecordedCall call = replayed.get(i);
                tally(call, peersOf.get(i), requests.get(i), decisions.get(i));
                List<CarrierConfig> chain = config.routes().chain(call.number());
                if (decisions.get(i).admitted() && !chain.isEmpty()) {
                    admitted.add(new Routed(call, chain));
                }
            }
            route(admitted);
        }

        /** An admitted call and the carriers it may go to; {@code next}: the one it tries now. */
        private static final class Routed {
            final RecordedCall call;
            final List<CarrierConfig> chain;
            int next;
            boolean leased;

            Routed(RecordedCall call, List<CarrierConfig> chain) {
                this.call = call;
                this.chain = chain;
            }

            CarrierConfig carrier() {
                return chain.get(next);
            }

            /**
             * How long the call holds its lease at {@code carrier}: until the record's next attempt when the record
             * shows it leaving that carrier, else until the call ended.
             */
            long leaseMs(CarrierConfig carrier) {
                return call.attemptAt(carrier.id()).flatMap(call::after)
                        .map(next -> Math.max(0, (RecordedCall.micros(next.sentAt()) - call.decidedMicros()) / 1000))
                        .orElse(call.upMs());
            }

            /**
             * Whether {@code carrier}'s answer moves the call on, as the gateway's failover does: the answer the
             * record has from the carrier, else (a carrier the record never tried) the record's final carrier's. A
             * final response the carrier's {@code failover-on} lists moves it on; so does silence the record shows
             * it leaving, where the carrier fails over on timeout.
             */
            boolean answerMovesOn(CarrierConfig carrier) {
                Optional<RecordedCall.Attempt> at = call.attemptAt(carrier.id());
                Optional<RecordedCall.Attempt> answer = at.or(call::finalAttempt);
                if (answer.isEmpty()) {
                    return false;
                }
                int status = answer.get().finalStatus();
                if (status == 0) {
                    return at.isPresent() && call.after(at.get()).isPresent() && carrier.failoverOnTimeout();
                }
                return carrier.failsOverOn(status);
            }
        }

        /** Routes the admitted calls, in order, those that arrived within {@link #routeSpanMicros} together. */
        private void route(List<Routed> calls) {
            int from = 0;
            while (from < calls.size()) {
                long end = calls.get(from).call.decidedMicros() + routeSpanMicros;
                int to = from + 1;
                while (to < calls.size() && calls.get(to).call.decidedMicros() < end) {
                    to++;
                }
                routeTogether(calls.subList(from, to));
                from = to;
            }
        }

        /**
         * Each call tries its carrier: the lease first where the carrier has a cap, then the slot, then the answer;
         * those moved on try their next carrier in a second round, and so on. A call moved on so tries its next
         * carrier after the first tries of the calls after it in {@code calls} (which arrived within half the
         * shortest max-wait), so its slot there can be later than the gateway gave it, by at most that much; and a
         * lease taken by a call whose slot then lay beyond max-wait is dropped after its round, so for the calls
         * after it in that round the carrier counts one more.
         */
        private void routeTogether(List<Routed> calls) {
            List<Routed> round = calls;
            while (!round.isEmpty()) {
                List<Routed> capped = round.stream().filter(r -> r.carrier().maxConcurrent().isPresent()).toList();
                List<ReplayAdmission.CarrierLease> wanted = capped.stream().map(WhatIf.Tally::lease).toList();
                List<Boolean> taken = wanted.isEmpty() ? List.of() : admission.takeCarrierAt(wanted);
                List<Routed> next = new ArrayList<>();
                List<Routed> toPace = new ArrayList<>();
                int c = 0;
                for (Routed call : round) {
                    CarrierConfig carrier = call.carrier();
                    call.leased = false;
                    if (carrier.maxConcurrent().isPresent()) {
                        boolean free = taken.get(c++);
                        call.leased = free;
                        if (!free) {
                            cap("carrier:" + carrier.id() + CAP, carrier.maxConcurrent().getAsInt(),
                                    carrier.shadowMaxConcurrent()).over++;
                            if (!carrier.shadowMaxConcurrent()) {
                                CarrierTally figures = carrier(carrier);
                                figures.atCapacity++;
                                figures.series.count(second(call), 1);
                                moveOn(call, figures, next);
                                continue;
                            }
                        }
                    }
                    toPace.add(call);
                }
                List<Reservation> slots = toPace.isEmpty() ? List.of() : pacing.reserveAt(
                        toPace.stream().map(Routed::carrier).toList(),
                        toPace.stream().map(r -> r.call.decidedMicros()).toList());
                List<ReplayAdmission.CarrierLease> unused = new ArrayList<>();
                for (int i = 0; i < toPace.size(); i++) {
                    Routed call = toPace.get(i);
                    CarrierTally carrier = carrier(call.carrier());
                    if (slots.get(i).reserved()) {
                        carrier.sent++;
                        carrier.delaysMs.add(slots.get(i).delay().toMillis());
                        carrier.series.count(second(call), 0);
                        if (call.answerMovesOn(call.carrier())) {
                            carrier.failedOver++;
                            moveOn(call, carrier, next);
                        }
                    } else {
                        carrier.overMaxWait++;
                        carrier.series.count(second(call), 1);
                        if (call.leased) {
                            unused.add(lease(call));
                        }
                        moveOn(call, carrier, next);
                    }
                }
                admission.releaseCarrier(unused);
                round = next;
            }
        }

        private static ReplayAdmission.CarrierLease lease(Routed call) {
            CarrierConfig carrier = call.carrier();
            return new ReplayAdmission.CarrierLease(call.call.callKey(), carrier.id(),
                    carrier.maxConcurrent().getAsInt(), call.call.decidedMicros(), call.leaseMs(carrier));
        }

        private static long second(Routed call) {
            return Math.floorDiv(call.call.decidedMicros(), 1_000_000L);
        }

        /** The call leaves {@code from}'s carrier for the next of its chain, or has none left. */
        private static void moveOn(Routed call, CarrierTally from, List<Routed> next) {
            if (++call.next < call.chain.size()) {
                next.add(call);
            } else {
                from.noCarrierLeft++;
            }
        }

        private CarrierTally carrier(CarrierConfig carrier) {
            return carriers.computeIfAbsent(carrier.id(), id -> new CarrierTally(carrier.cps()));
        }

        /** The figures of the cap labelled {@code label} ("peer:a max-concurrent"), of {@code max} calls. */
        private CapTally cap(String label, int max, boolean shadow) {
            CapTally cap = caps.computeIfAbsent(label, l -> new CapTally());
            cap.max = max;
            cap.shadow = shadow;
            return cap;
        }

        /** What the record says happened at the carriers of the configuration replayed. */
        private void recordedAtCarriers(RecordedCall call) {
            for (RecordedCall.Attempt attempt : call.attempts()) {
                config.routes().carrier(attempt.carrier()).ifPresent(c -> {
                    CarrierTally carrier = carrier(c);
                    carrier.recordedSent++;
                    carrier.recordedDelaysMs.add(attempt.slotWaitMs());
                });
            }
            for (RecordedCall.Reroute left : call.reroutes()) {
                config.routes().carrier(left.from()).ifPresent(c -> {
                    CarrierTally carrier = carrier(c);
                    if (left.reason().equals("over_max_wait")) {
                        carrier.recordedOverMaxWait++;
                    } else if (left.reason().equals("at_capacity")) {
                        carrier.recordedAtCapacity++;
                    } else if (left.reason().startsWith("failure_response") || left.reason().equals("timeout")) {
                        carrier.recordedFailedOver++;
                    }
                });
            }
        }

        /**
         * The caps the record says the call was over: the one that refused it, the shadow ones that would have,
         * and a carrier it left at capacity.
         */
        private void recordedOverCaps(RecordedCall call) {
            if (call.refusedBy() != null && call.refusedBy().endsWith(CAP)) {
                caps.computeIfAbsent(call.refusedBy(), l -> new CapTally()).recordedOver++;
            }
            call.wouldRefuse().stream().filter(w -> w.endsWith(CAP))
                    .forEach(w -> caps.computeIfAbsent(w, l -> new CapTally()).recordedOver++);
            call.reroutes().stream().filter(r -> r.reason().equals("at_capacity"))
                    .forEach(r -> caps.computeIfAbsent("carrier:" + r.from() + CAP, l -> new CapTally()).recordedOver++);
        }

        private void tally(RecordedCall call, PeerConfig peer, AdmissionRequest request, AdmissionDecision decision) {
            PeerTally figures = peers.computeIfAbsent(peer.id(), id -> new PeerTally(limitRates(peer)));
            for (Scope scope : request.scopes()) {
                scope.maxConcurrent().ifPresent(max -> cap(scope + CAP, max, scope.shadowCap()));
            }
            figures.offered++;
            long second = Math.floorDiv(call.decidedMicros(), 1_000_000L);
            String replayed = switch (decision.outcome()) {
                case ADMITTED -> "admitted";
                case DUPLICATE -> "merged";
                default -> "rejected";
            };
            if (decision.outcome() == Outcome.ADMITTED) {
                figures.admitted++;
                figures.series.count(second, 0);
            } else if (decision.outcome() != Outcome.DUPLICATE) {
                figures.series.count(second, 1);
                String by = decision.refusedBy().map(Object::toString).orElse("?") + " "
                        + (decision.outcome() == Outcome.CONCURRENT ? CAP.trim()
                        : decision.refusedLimit().map(Object::toString).orElse("?"));
                figures.refusedBy.merge(by, 1L, Long::sum);
                if (decision.outcome() == Outcome.CONCURRENT) {
                    caps.get(by).over++;
                }
            }
            decision.wouldRefuse().forEach(w -> {
                figures.wouldRefuse.merge(w.label(), 1L, Long::sum);
                if (w.limit().isEmpty()) {
                    caps.get(w.label()).over++;
                }
            });
            figures.recordedAdmitted += call.admission().equals("admitted") ? 1 : 0;
            figures.recordedRefused += call.admission().equals("rejected") ? 1 : 0;
            if (replayed.equals(call.admission())) {
                figures.sameDecision++;
            } else {
                Duration window = longestWindow(request);
                String cause = causes.of(call, window);
                if (cause.isEmpty()) {
                    cause = afterADifference(call, request, window);
                }
                for (Scope scope : request.scopes()) {
                    lastDifference.put(scope.toString(), call);
                }
                String why = cause.isEmpty() ? WhatIfReport.NO_CAUSE : cause;
                differencesBy.merge(why, 1, Integer::sum);
                if (differences.size() < WhatIfReport.LISTED) {
                    differences.add(call.where() + ": recorded " + call.admission() + ", replayed " + replayed
                            + ": " + why);
                }
            }
        }

        /**
         * Why a call differs when an earlier call of one of its scopes, within {@code window} before it, got another
         * decision than recorded: from then on the replay's windows hold other calls than production's did.
         */
        private String afterADifference(RecordedCall call, AdmissionRequest request, Duration window) {
            for (Scope scope : request.scopes()) {
                RecordedCall earlier = lastDifference.get(scope.toString());
                if (earlier != null && call.decidedMicros() - earlier.decidedMicros() <= window.toNanos() / 1000) {
                    return "follows a call of " + scope + " whose decision differs, within "
                            + ReportText.duration(window) + " before it: its windows held other calls from then on";
                }
            }
            return "";
        }

        /** The longest window of the limits the call met. */
        private static Duration longestWindow(AdmissionRequest request) {
            return request.scopes().stream().flatMap(s -> s.limits().stream()).map(l -> l.window())
                    .max(Comparator.naturalOrder()).orElse(Duration.ZERO);
        }

        /** Why the scripts cannot give a call the decision it got, if they cannot. */
        private static Optional<String> unreproducible(RecordedCall call) {
            if (!call.redisDecided() && !call.admission().equals("shed")) {
                // admitted or refused by admission.redis-down (allow, or local's in-memory windows)
                return Optional.of(REDIS_DOWN);
            }
            return switch (call.admission()) {
                case "shed" -> Optional.of("shed before admission: starting, overload or shutdown");
                case "blocked" -> Optional.of("refused by an operator block: set through the admin API, not in the"
                        + " configuration");
                case "redis_unavailable" -> Optional.of(REDIS_DOWN);
                case "admitted", "merged", "rejected" -> Optional.empty();
                default -> Optional.of("admission \"" + call.admission() + "\" unknown");
            };
        }

        /** The calls per second each limit of the peer and its group allows, by limit. */
        private Map<String, Double> limitRates(PeerConfig peer) {
            Map<String, Double> rates = new TreeMap<>();
            for (Scope scope : config.admissionRequest(peer, "-").scopes()) {
                scope.limits().forEach(limit -> rates.put(scope + " " + limit + (limit.shadow() ? " (shadow)" : ""),
                        limit.max() * 1e9 / limit.window().toNanos()));
            }
            return rates;
        }

        WhatIfReport report(List<String> broken) {
            List<Series> all = new ArrayList<>();
            peers.values().forEach(p -> all.add(p.series));
            carriers.values().forEach(c -> all.add(c.series));
            long first = all.stream().filter(s -> !s.perSecond.isEmpty()).mapToLong(s -> s.perSecond.firstKey()).min()
                    .orElse(0);
            long last = all.stream().filter(s -> !s.perSecond.isEmpty()).mapToLong(s -> s.perSecond.lastKey()).max()
                    .orElse(0);
            long bucket = Math.max(1, (last - first + WhatIfReport.Timeline.BUCKETS) / WhatIfReport.Timeline.BUCKETS);
            int buckets = (int) ((last - first) / bucket + 1);
            Map<String, WhatIfReport.PeerFigures> peerFigures = new TreeMap<>();
            peers.forEach((id, p) -> peerFigures.put(id, new WhatIfReport.PeerFigures(p.offered, p.admitted,
                    new TreeMap<>(p.refusedBy), new TreeMap<>(p.wouldRefuse), p.recordedAdmitted, p.recordedRefused,
                    p.sameDecision, p.series.timeline(first, bucket, buckets))));
            Map<String, WhatIfReport.CarrierFigures> carrierFigures = new TreeMap<>();
            carriers.forEach((id, c) -> carrierFigures.put(id, new WhatIfReport.CarrierFigures(c.sent, c.overMaxWait,
                    c.atCapacity, c.failedOver, c.noCarrierLeft, percentiles(c.delaysMs), c.recordedSent,
                    c.recordedOverMaxWait, c.recordedAtCapacity, c.recordedFailedOver,
                    percentiles(c.recordedDelaysMs), c.series.timeline(first, bucket, buckets))));
            Map<String, WhatIfReport.CapFigures> capFigures = new TreeMap<>();
            caps.forEach((label, c) -> capFigures.put(label,
                    new WhatIfReport.CapFigures(c.max, c.shadow, c.over, c.recordedOver)));
            return new WhatIfReport(peerFigures, carrierFigures, capFigures, differences, differencesBy, notReplayed,
                    broken.subList(0, Math.min(broken.size(), WhatIfReport.LISTED)), broken.size());
        }
    }

    /** p50, p95, p99 and max of {@code values} (nearest rank); empty for none. */
    static Map<String, Long> percentiles(LongList values) {
        Map<String, Long> result = new LinkedHashMap<>();
        if (values.size == 0) {
            return result;
        }
        long[] sorted = Arrays.copyOf(values.values, values.size);
        Arrays.sort(sorted);
        for (int p : new int[] {50, 95, 99}) {
            result.put("p" + p, sorted[(int) Math.ceil(p / 100.0 * sorted.length) - 1]);
        }
        result.put("max", sorted[sorted.length - 1]);
        return result;
    }

    /** Counts per second, of two kinds (admitted or sent [0], refused or rerouted [1]), and the rates to draw. */
    private static final class Series {
        final Map<String, Double> rates;
        final TreeMap<Long, long[]> perSecond = new TreeMap<>();

        Series(Map<String, Double> rates) {
            this.rates = rates;
        }

        void count(long second, int kind) {
            perSecond.computeIfAbsent(second, s -> new long[2])[kind]++;
        }

        WhatIfReport.Timeline timeline(long first, long bucket, int buckets) {
            Long[] ok = new Long[buckets];
            Long[] refused = new Long[buckets];
            Arrays.fill(ok, 0L);
            Arrays.fill(refused, 0L);
            perSecond.forEach((second, counts) -> {
                int i = (int) ((second - first) / bucket);
                ok[i] += counts[0];
                refused[i] += counts[1];
            });
            return new WhatIfReport.Timeline(Instant.ofEpochSecond(first).toString(), bucket, List.of(ok),
                    List.of(refused), rates);
        }
    }

    /** A growable array of longs (a day of delays is a million values). */
    static final class LongList {
        long[] values = new long[64];
        int size;

        void add(long value) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = value;
        }
    }

    private static final class PeerTally {
        final Series series;
        final Map<String, Long> refusedBy = new TreeMap<>();
        final Map<String, Long> wouldRefuse = new TreeMap<>();
        long offered;
        long admitted;
        long recordedAdmitted;
        long recordedRefused;
        long sameDecision;

        PeerTally(Map<String, Double> limitRates) {
            this.series = new Series(limitRates);
        }
    }

    private static final class CarrierTally {
        final Series series;
        final LongList delaysMs = new LongList();
        final LongList recordedDelaysMs = new LongList();
        long sent;
        long overMaxWait;
        long atCapacity;
        long failedOver;
        long noCarrierLeft;
        long recordedSent;
        long recordedOverMaxWait;
        long recordedAtCapacity;
        long recordedFailedOver;

        CarrierTally(double cps) {
            this.series = new Series(Map.of("cps", cps));
        }
    }

    /** A cap's figures; {@code max} 0: the configuration replayed has no such cap (only the records name it). */
    private static final class CapTally {
        int max;
        boolean shadow;
        long over;
        long recordedOver;
    }
}
