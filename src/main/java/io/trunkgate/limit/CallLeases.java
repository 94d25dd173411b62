package io.trunkgate.limit;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

/**
 * Leases on calls in progress, fleet-wide, for {@code max-concurrent} caps. A call's peer and group leases are
 * taken by its admission (atomically with the rate check); its carrier lease when it is sent to a capped
 * carrier. Leases carry their owner instance and lapse unless the owner renews them, so a crashed instance's
 * calls stop counting after the lease time; a release that fails while Redis is out of reach is retried.
 */
public interface CallLeases {

    /**
     * Takes the call's lease at {@code carrierId}, which admits {@code max} calls in progress, first dropping
     * its lease at the carrier it was sent to before (failover). Completes false when the carrier is full;
     * exceptionally with {@link LimiterUnavailableException} when Redis cannot be reached.
     */
    CompletionStage<Boolean> takeCarrier(String callId, String carrierId, int max);

    /** The call is no longer at its carrier (it failed over, or was never sent): its carrier lease goes. */
    void releaseCarrier(String callId);

    /** The call ended: every lease it holds goes. */
    void release(String callId);

    /** Calls of the peer in progress fleet-wide (leases not lapsed). */
    CompletionStage<Long> peerCalls(String peerId, Optional<String> groupId);

    /** Calls of the group's peers in progress fleet-wide. */
    CompletionStage<Long> groupCalls(String groupId);

    /** Calls in progress at the carrier fleet-wide. */
    CompletionStage<Long> carrierCalls(String carrierId);

    /** Calls this instance holds leases for. */
    int held();

    /** Releases that failed and wait for Redis to come back. */
    int pendingReleases();

    /** Renews the leases, replays failed releases and drops those of ended calls every third of the lease time. */
    void start(ScheduledExecutorService timers);

    /** Stops renewing and waits (up to {@code wait}) for the releases under way, e.g. those of a shutdown. */
    void close(Duration wait);
}
