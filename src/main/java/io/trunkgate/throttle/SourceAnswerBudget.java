package io.trunkgate.throttle;

import java.net.InetAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;

/**
 * Per-source budget for requests from addresses that are no configured peer (like Kamailio's pike): each
 * source gets {@code perSecond} answers a second with a burst of as many; beyond that its requests are
 * dropped without an answer, so a flood costs one map lookup per message and cannot starve known peers.
 * Memory is bounded: past {@code maxSources} tracked sources the table starts afresh.
 */
public final class SourceAnswerBudget {

    private final double perSecond;
    private final int maxSources;
    private final LongSupplier nanoClock;
    private final ConcurrentMap<InetAddress, TokenBucket> budgets = new ConcurrentHashMap<>();

    public SourceAnswerBudget(double perSecond, int maxSources, LongSupplier nanoClock) {
        this.perSecond = perSecond;
        this.maxSources = maxSources;
        this.nanoClock = nanoClock;
    }

    /** Whether a request from {@code source} may be answered now; spends one unit of its budget if so. */
    public boolean allow(InetAddress source) {
        long now = nanoClock.getAsLong();
        if (budgets.size() >= maxSources && !budgets.containsKey(source)) {
            budgets.clear();
        }
        return budgets.computeIfAbsent(source, s -> new TokenBucket()).tryTake(now, perSecond, perSecond);
    }
}
