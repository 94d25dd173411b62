package io.trunkgate.limit;

import io.trunkgate.config.Limit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/** The live state of a peer's admission windows, read without changing it (GET /api/peers). */
public interface WindowUsage {

    /** One admitted call in an exact window: its member (CallMember of the call's key) and when it was admitted. */
    record WindowCall(String member, long admittedMicros) {
    }

    /** One limit's usage at {@code serverTimeMicros} (Redis time). */
    record LimitUsage(Scope scope, Limit limit, long used, List<WindowCall> calls, long serverTimeMicros) {
    }

    /**
     * The usage of every limit of the peer's scope and then of its group's. {@code listCalls} caps how many
     * calls are listed per exact window.
     */
    CompletionStage<List<LimitUsage>> read(Scope peer, Optional<Scope> group, int listCalls);
}
