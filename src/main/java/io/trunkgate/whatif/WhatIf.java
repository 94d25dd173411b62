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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Replays recorded calls through a configuration: each call, in the order of its arrival, is admitted or refused by
 * lua/admit.lua on a scratch redis-server whose script clock is set to the call's arrival time, and an admitted call
 * takes its carriers' slots through lua/pace.lua the same way (its chain by the number it was routed on; a slot
 * beyond a carrier's max-wait moves it to the next), so a day of records replays in minutes. Calls whose recorded
 * decision the scripts cannot reproduce are not replayed, and counted by reason: calls shed before admission, calls
 * an operator block refused, calls decided by the Redis-down policy, calls refused by a max-concurrent cap (caps are
 * not replayed: their scripts read Redis's own clock, and a record does not say when its call's lease was released
 * before it ended).
 */
public final class WhatIf {

    /** Prefix of the keys on the scratch server. */
    private static final String PREFIX = "what-if";
    /** Calls sent to the scratch server in one pipelined round trip. */
    private static final int BATCH = 2000;

    private WhatIf() {
    }

    /** Replays the calls of {@code records} that arrived in [{@code from}, {@code to}) through {@code config}. */
    public static WhatIfReport replay(GatewayConfig config, List<Path> records, Optional<Instant> from,
                                      Optional<Instant> to) throws IOException {
        RecordsFile.Contents contents = RecordsFile.read(records, from, to);
        List<RecordedCall> calls = new ArrayList<>(contents.calls());
        calls.sort(Comparator.comparing(RecordedCall::invitedAt));
        RedisConnection scratch = new RedisConnection(RedisConnection.Mode.EMBEDDED, List.of(), Optional.empty(),
                Optional.empty(), Duration.ofSeconds(10), 0);
        try (RedisRuntime redis = RedisRuntime.open(scratch, null)) {
            Tally tally = new Tally(new ActiveConfig(config, 1), ReplayAdmission.on(redis.client(), PREFIX),
                    ReplayPacing.on(redis.client(), PREFIX));
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
        private final List<String> differences = new ArrayList<>();
        private int differenceCount;
        private final Map<String, Integer> notReplayed = new TreeMap<>();

        Tally(ActiveConfig config, ReplayAdmission admission, ReplayPacing pacing) {
            this.config = config;
            this.admission = admission;
            this.pacing = pacing;
        }

        /** Replays {@code calls} (in order of arrival): their admission in one round trip, then their pacing. */
        void replay(List<RecordedCall> calls) {
            List<RecordedCall> replayed = new ArrayList<>();
            List<PeerConfig> peersOf = new ArrayList<>();
            List<AdmissionRequest> requests = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            for (RecordedCall call : calls) {
                recordedAtCarriers(call);
                Optional<String> skip = unreproducible(call);
                Optional<PeerConfig> peer = config.peers().find(call.source());
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
                times.add(call.invitedMicros());
            }
            List<AdmissionDecision> decisions = requests.isEmpty() ? List.of() : admission.admitAt(requests, times);
            List<Routed> admitted = new ArrayList<>();
            for (int i = 0; i < decisions.size(); i++) {
                RecordedCall call = replayed.get(i);
                tally(call, peersOf.get(i), decisions.get(i));
                List<CarrierConfig> chain = config.routes().chain(call.number());
                if (decisions.get(i).admitted() && !chain.isEmpty()) {
                    admitted.add(new Routed(call.invitedMicros(), chain));
                }
            }
            pace(admitted);
        }

        /** An admitted call and the carriers it may go to; {@code next}: the one it tries now. */
        private static final class Routed {
            final long micros;
            final List<CarrierConfig> chain;
            int next;

            Routed(long micros, List<CarrierConfig> chain) {
                this.micros = micros;
                this.chain = chain;
            }
        }

        /**
         * Each call takes its first carrier's slot; those beyond max-wait try their next carrier, in a second round,
         * and so on: within a batch a rerouted call reserves after the first tries of the calls after it (up to 2000
         * calls, seconds of traffic), so its slot at the next carrier can be later than the gateway gave it.
         */
        private void pace(List<Routed> calls) {
            List<Routed> round = calls;
            while (!round.isEmpty()) {
                List<CarrierConfig> asked = round.stream().map(r -> r.chain.get(r.next)).toList();
                List<Reservation> slots = pacing.reserveAt(asked, round.stream().map(r -> r.micros).toList());
                List<Routed> next = new ArrayList<>();
                for (int i = 0; i < round.size(); i++) {
                    Routed call = round.get(i);
                    CarrierTally carrier = carrier(asked.get(i));
                    long second = Math.floorDiv(call.micros, 1_000_000L);
                    if (slots.get(i).reserved()) {
                        carrier.sent++;
                        carrier.delaysMs.add(slots.get(i).delay().toMillis());
                        carrier.series.count(second, 0);
                    } else {
                        carrier.overMaxWait++;
                        carrier.series.count(second, 1);
                        if (++call.next < call.chain.size()) {
                            next.add(call);
                        } else {
                            carrier.noCarrierLeft++;
                        }
                    }
                }
                round = next;
            }
        }

        private CarrierTally carrier(CarrierConfig carrier) {
            return carriers.computeIfAbsent(carrier.id(), id -> new CarrierTally(carrier.cps()));
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
            for (String left : call.overMaxWait()) {
                config.routes().carrier(left).ifPresent(c -> carrier(c).recordedOverMaxWait++);
            }
        }

        private void tally(RecordedCall call, PeerConfig peer, AdmissionDecision decision) {
            PeerTally figures = peers.computeIfAbsent(peer.id(), id -> new PeerTally(limitRates(peer)));
            figures.offered++;
            long second = Math.floorDiv(call.invitedMicros(), 1_000_000L);
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
                figures.refusedBy.merge(decision.refusedBy().map(Object::toString).orElse("?") + " "
                        + decision.refusedLimit().map(Object::toString).orElse("?"), 1L, Long::sum);
            }
            decision.wouldRefuse().forEach(w -> figures.wouldRefuse.merge(w.label(), 1L, Long::sum));
            figures.recordedAdmitted += call.admission().equals("admitted") ? 1 : 0;
            figures.recordedRefused += call.admission().equals("rejected") ? 1 : 0;
            if (replayed.equals(call.admission())) {
                figures.sameDecision++;
            } else if (differenceCount++ < WhatIfReport.LISTED) {
                differences.add(call.where() + ": recorded " + call.admission() + ", replayed " + replayed);
            }
        }

        /** Why the scripts cannot give a call the decision it got, if they cannot. */
        private static Optional<String> unreproducible(RecordedCall call) {
            return switch (call.admission()) {
                case "shed" -> Optional.of("shed before admission: starting, overload or shutdown");
                case "blocked" -> Optional.of("refused by an operator block: blocks are not replayed");
                case "redis_unavailable" -> Optional.of("Redis was unreachable: decided by admission.redis-down");
                case "rejected" -> call.refusedBy() != null && call.refusedBy().endsWith(" max-concurrent")
                        ? Optional.of("refused by a max-concurrent cap: caps are not replayed") : Optional.empty();
                case "admitted", "merged" -> Optional.empty();
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
                    c.noCarrierLeft, percentiles(c.delaysMs), c.recordedSent, c.recordedOverMaxWait,
                    percentiles(c.recordedDelaysMs), c.series.timeline(first, bucket, buckets))));
            return new WhatIfReport(peerFigures, carrierFigures, differences, notReplayed,
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
        long noCarrierLeft;
        long recordedSent;
        long recordedOverMaxWait;

        CarrierTally(double cps) {
            this.series = new Series(Map.of("cps", cps));
        }
    }
}
