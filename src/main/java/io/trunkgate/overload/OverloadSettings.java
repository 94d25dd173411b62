package io.trunkgate.overload;

import java.time.Duration;

/**
 * Every setting and constant of overload control (docs/overload.md explains each rule). The first three come from
 * gateway.conf and change on reload; the rest are {@link #of}'s defaults.
 *
 * @param target                 {@code sip.overload-delay}: the standing wait of received messages past which new
 *                               calls are shed; zero turns every rule on the wait off
 * @param maxCallsInProgress     {@code sip.max-calls-in-progress}
 * @param maxNewCallsPerSecond   {@code sip.max-new-calls-per-second}; 0: no cap
 * @param newCallBurstsPerSecond that cap lets a burst of its calls of this many parts of a second (at least one)
 * @param interval               CoDel's interval: the shortest wait of each interval is the standing wait. Longer
 *                               than a burst or a GC pause takes to drain, short enough to react at once
 * @param probePeriod            how often a UDP socket is probed while datagrams wait in it: several
 *                               samples per interval
 * @param backlogFactor          a new INVITE behind a backlog of this many targets is shed: more than a burst or
 *                               a short pause leaves
 * @param decrease               a cut of the rate keeps this share of the calls let in over the last second
 * @param decreaseSpacing        cuts are this far apart at least, so that one shows in the waits before the next
 * @param increase               each interval with waits under half the target raises the rate by this share (and
 *                               by one call at least)
 * @param minCutBase             an overload with fewer calls let in over the last second is not the new calls'
 *                               doing (a cold JVM, a busy host): the rate is not cut for it
 * @param releaseAfter           with no overload and no call refused by the rate for this long, the rate is no
 *                               longer limited
 */
public record OverloadSettings(Duration target, int maxCallsInProgress, double maxNewCallsPerSecond,
                               double newCallBurstsPerSecond, Duration interval, Duration probePeriod,
                               int backlogFactor, double decrease, Duration decreaseSpacing, double increase,
                               int minCutBase, Duration releaseAfter) {

    public OverloadSettings {
        if (target.isNegative() || maxCallsInProgress < 1 || maxNewCallsPerSecond < 0) {
            throw new IllegalArgumentException("target >= 0, maxCallsInProgress >= 1, maxNewCallsPerSecond >= 0: "
                    + target + ", " + maxCallsInProgress + ", " + maxNewCallsPerSecond);
        }
    }

    /** The configured caps with the default constants. */
    public static OverloadSettings of(Duration target, int maxCallsInProgress, double maxNewCallsPerSecond) {
        return new OverloadSettings(target, maxCallsInProgress, maxNewCallsPerSecond, 10, Duration.ofMillis(100),
                Duration.ofMillis(10), 4, 0.85, Duration.ofMillis(500), 0.01, 20, Duration.ofSeconds(10));
    }
}
