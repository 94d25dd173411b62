package io.trunkgate.limit.internal;

import io.trunkgate.config.Limit;
import io.trunkgate.config.LimitMode;
import io.trunkgate.limit.AdmissionDecision.Outcome;
import io.trunkgate.limit.AdmissionDecision;
import io.trunkgate.limit.AdmissionLimiter;
import io.trunkgate.limit.AdmissionRequest;
import io.trunkgate.limit.Scope;
import io.trunkgate.limit.WouldRefuse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The in-memory fallback while Redis is unreachable: the windows of admit.lua, each at this instance's
 * share of its max (max / fleet size, rounded down), so the fleet together stays within every limit.
 * Blocks and retransmission detection live in Redis and are not seen here. Shadow limits are counted as admit.lua
 * counts them: a call they would refuse is reported, and recorded only in the windows that would have admitted it.
 */
public final class LocalAdmissionLimiter implements AdmissionLimiter {

    private final int fleetSize;
    private final LongSupplier clockMicros;
    private final Map<String, Window> windows = new HashMap<>();

    public LocalAdmissionLimiter(int fleetSize, LongSupplier clockMicros) {
        this.fleetSize = fleetSize;
        this.clockMicros = clockMicros;
    }

    @Override
    public synchronized CompletionStage<AdmissionDecision> admit(AdmissionRequest request) {
        long now = clockMicros.getAsLong();
        List<Window> all = new ArrayList<>();
        List<WouldRefuse> over = new ArrayList<>();
        long remaining = -1;
        Window refused = null;
        long refusedRetry = 0;
        for (Scope scope : request.scopes()) {
            for (Limit limit : scope.limits()) {
                Window window = windows.computeIfAbsent(windowName(scope, limit), k -> Window.of(scope, limit));
                long share = limit.max() / fleetSize;
                long left = share - window.count(now) - request.weight();
                if (limit.shadow()) {
                    if (left < 0) {
                        over.add(new WouldRefuse(scope, Optional.of(limit)));
                    } else {
                        all.add(window);
                    }
                    continue;
                }
                all.add(window);
                if (left < 0) {
                    long retry = window.retryAfter(now, -left);
                    if (retry > refusedRetry || refused == null) {
                        refused = window;
                        refusedRetry = retry;
                    }
                } else if (remaining < 0 || left < remaining) {
                    remaining = left;
                }
            }
        }
        if (refused != null) {
            return CompletableFuture.completedFuture(new AdmissionDecision(Outcome.LIMITED,
                    Duration.ofMillis((refusedRetry + 999) / 1000), Optional.of(refused.scope),
                    Optional.of(refused.limit), 0, now, Optional.empty(), over));
        }
        all.forEach(window -> window.record(now, request.weight()));
        return CompletableFuture.completedFuture(new AdmissionDecision(Outcome.ADMITTED, Duration.ZERO,
                Optional.empty(), Optional.empty(), remaining, now, Optional.empty(), over));
    }

    /**
     * A window's name: its scope and limit, the same in either mode (switching a limit to enforce keeps what it
     * counted), except for a shadow limit beside an enforced one that is otherwise the same (as KeyLayout does).
     */
    private static String windowName(Scope scope, Limit limit) {
        boolean ownWindow = limit.shadow() && scope.limits().contains(limit.in(LimitMode.ENFORCE));
        return scope + "|" + limit + (ownWindow ? "|shadow" : "");
    }

    /** One limit's window in memory; times in microseconds. */
    private abstract static class Window {
        final Scope scope;
        final Limit limit;
        final long windowMicros;

        Window(Scope scope, Limit limit) {
            this.scope = scope;
            this.limit = limit;
            this.windowMicros = limit.window().toNanos() / 1000;
        }

        static Window of(Scope scope, Limit limit) {
            return limit.isExact() ? new ExactWindow(scope, limit) : new BucketWindow(scope, limit);
        }

        abstract long count(long now);

        /** Microseconds until {@code excess} units have left the window; the window when it cannot tell. */
        abstract long retryAfter(long now, long excess);

        abstract void record(long now, int weight);
    }

    /** A call admitted at x counts while x >= now - window, as in admit.lua. */
    private static final class ExactWindow extends Window {
        private final ArrayDeque<Long> admitted = new ArrayDeque<>();

        ExactWindow(Scope scope, Limit limit) {
            super(scope, limit);
        }

        @Override
        long count(long now) {
            while (!admitted.isEmpty() && admitted.peekFirst() < now - windowMicros) {
                admitted.pollFirst();
            }
            return admitted.size();
        }

        @Override
        long retryAfter(long now, long excess) {
            Iterator<Long> oldest = admitted.iterator();
            for (long i = 1; oldest.hasNext(); i++) {
                long at = oldest.next();
                if (i == excess) {
                    return at + windowMicros + 1 - now;
                }
            }
            return windowMicros;
        }

        @Override
        void record(long now, int weight) {
            for (int i = 0; i < weight; i++) {
                admitted.addLast(now);
            }
        }
    }

    /** Every bucket touching [now - window, now] counts in full, as in admit.lua. */
    private static final class BucketWindow extends Window {
        private final long precisionMicros;
        private final TreeMap<Long, Long> buckets = new TreeMap<>();

        BucketWindow(Scope scope, Limit limit) {
            super(scope, limit);
            this.precisionMicros = limit.precision().orElseThrow().toNanos() / 1000;
        }

        @Override
        long count(long now) {
            buckets.headMap(Math.floorDiv(now - windowMicros, precisionMicros)).clear();
            return buckets.values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        long retryAfter(long now, long excess) {
            long freed = 0;
            for (Map.Entry<Long, Long> bucket : buckets.entrySet()) {
                freed += bucket.getValue();
                if (freed >= excess) {
                    return (bucket.getKey() + 1) * precisionMicros + windowMicros - now;
                }
            }
            return windowMicros;
        }

        @Override
        void record(long now, int weight) {
            buckets.merge(Math.floorDiv(now, precisionMicros), (long) weight, Long::sum);
        }
    }
}
