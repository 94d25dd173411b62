package io.trunkgate.whatif;

import io.trunkgate.config.GatewayConfig;
import io.trunkgate.config.PeerConfig;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.ReplayAdmission;
import io.trunkgate.limit.Scope;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Replays recorded calls through a configuration: each call, in the order of its arrival, is admitted or refused by
 * lua/admit.lua on a scratch redis-server whose script clock is set to the call's arrival time, so a day of records
 * replays in minutes. Calls whose recorded decision the scripts cannot reproduce are not replayed, and counted by
 * reason: calls shed before admission, calls an operator block refused, calls decided by the Redis-down policy,
 * calls refused by a max-concurrent cap (caps are not replayed: their scripts read Redis's own clock, and a record
 * does not say when its call's lease was released before it ended).
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
            ReplayAdmission admission = ReplayAdmission.on(redis.client(), PREFIX);
            Tally tally = new Tally(new ActiveConfig(config, 1), admission);
            for (int first = 0; first < calls.size(); first += BATCH) {
                tally.replay(calls.subList(first, Math.min(calls.size(), first + BATCH)));
            }
            return tally.report(contents.broken());
        }
    }

    /** The figures as calls are replayed, one at a time. */
    private static final class Tally {
        private final ActiveConfig config;
        private final ReplayAdmission admission;
        private final Map<String, Figures> peers = new TreeMap<>();
        private final List<String> differences = new ArrayList<>();
        private int differenceCount;
        private final Map<String, Integer> notReplayed = new TreeMap<>();

        Tally(ActiveConfig config, ReplayAdmission admission) {
            this.config = config;
            this.admission = admission;
        }

        /** Replays {@code calls} (in order of arrival) in one round trip. */
        void replay(List<RecordedCall> calls) {
            List<RecordedCall> replayed = new ArrayList<>();
            List<PeerConfig> peersOf = new ArrayList<>();
            List<AdmissionRequest> requests = new ArrayList<>();
            List<Long> times = new ArrayList<>();
            for (RecordedCall call : calls) {
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
            for (int i = 0; i < decisions.size(); i++) {
                tally(replayed.get(i), peersOf.get(i), decisions.get(i));
            }
        }

        private void tally(RecordedCall call, PeerConfig peer, AdmissionDecision decision) {
            Figures figures = peers.computeIfAbsent(peer.id(), id -> new Figures(limitRates(peer)));
            figures.offered++;
            long second = Math.floorDiv(call.invitedMicros(), 1_000_000L);
            String replayed = switch (decision.outcome()) {
                case ADMITTED -> "admitted";
                case DUPLICATE -> "merged";
                default -> "rejected";
            };
            if (decision.outcome() == Outcome.ADMITTED) {
                figures.admitted++;
                figures.perSecond.computeIfAbsent(second, s -> new long[2])[0]++;
            } else if (decision.outcome() != Outcome.DUPLICATE) {
                figures.perSecond.computeIfAbsent(second, s -> new long[2])[1]++;
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
            long first = peers.values().stream().filter(f -> !f.perSecond.isEmpty())
                    .mapToLong(f -> f.perSecond.firstKey()).min().orElse(0);
            long last = peers.values().stream().filter(f -> !f.perSecond.isEmpty())
                    .mapToLong(f -> f.perSecond.lastKey()).max().orElse(0);
            long bucket = Math.max(1, (last - first + WhatIfReport.Timeline.BUCKETS) / WhatIfReport.Timeline.BUCKETS);
            int buckets = (int) ((last - first) / bucket + 1);
            Map<String, WhatIfReport.PeerFigures> figures = new TreeMap<>();
            peers.forEach((id, f) -> figures.put(id, new WhatIfReport.PeerFigures(f.offered, f.admitted,
                    new TreeMap<>(f.refusedBy), new TreeMap<>(f.wouldRefuse), f.recordedAdmitted, f.recordedRefused,
                    f.sameDecision, f.timeline(first, bucket, buckets))));
            return new WhatIfReport(figures, differences, notReplayed,
                    broken.subList(0, Math.min(broken.size(), WhatIfReport.LISTED)), broken.size());
        }
    }

    private static final class Figures {
        final Map<String, Double> limitRates;
        /** Calls admitted [0] and refused [1] in each second (epoch seconds) that had any. */
        final TreeMap<Long, long[]> perSecond = new TreeMap<>();
        long offered;
        long admitted;
        final Map<String, Long> refusedBy = new TreeMap<>();
        final Map<String, Long> wouldRefuse = new TreeMap<>();
        long recordedAdmitted;
        long recordedRefused;
        long sameDecision;

        Figures(Map<String, Double> limitRates) {
            this.limitRates = limitRates;
        }

        WhatIfReport.Timeline timeline(long first, long bucket, int buckets) {
            Long[] admitted = new Long[buckets];
            Long[] refused = new Long[buckets];
            Arrays.fill(admitted, 0L);
            Arrays.fill(refused, 0L);
            perSecond.forEach((second, counts) -> {
                int i = (int) ((second - first) / bucket);
                admitted[i] += counts[0];
                refused[i] += counts[1];
            });
            return new WhatIfReport.Timeline(Instant.ofEpochSecond(first).toString(), bucket, List.of(admitted),
                    List.of(refused), limitRates);
        }
    }
}
