package io.trunkgate.limit;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Manual blocks, seen by every gateway instance: a blocked peer's calls are refused with
 * {@link AdmissionDecision.Outcome#BLOCKED} until the block ends. A peer is named with its group, because
 * its keys live under the group's hash tag.
 */
public interface BlockRegistry {

    CompletionStage<Void> block(String peerId, Optional<String> groupId, Duration duration);

    /** Completes with whether a block was lifted. */
    CompletionStage<Boolean> unblock(String peerId, Optional<String> groupId);

    /** The time left on the peer's block, if it is blocked. */
    CompletionStage<Optional<Duration>> remaining(String peerId, Optional<String> groupId);
}
