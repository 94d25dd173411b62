package io.trunkgate.route;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Extension point: decides which carriers a call tries after leaving one. Implementations are found with
 * {@link java.util.ServiceLoader} (META-INF/services/io.trunkgate.route.RerouteHook) or named in gateway.conf
 * ({@code routing.reroute-hook}); they must be thread-safe and must not block.
 */
public interface RerouteHook {

    /** The chain as configured: the remaining candidates, unchanged. */
    RerouteHook CONFIGURED_CHAIN = RerouteContext::remaining;

    /**
     * Returns the carrier ids to try next, in order: {@code context.remaining()} reordered, shortened or
     * extended. Ids already tried for this call and unknown ids are skipped.
     */
    List<String> reroute(RerouteContext context);

    /**
     * As {@link #reroute}, answered when the choice is made: the gateway calls this, and goes on with the call when
     * the stage completes, on the thread that completes it. The default answers with {@link #reroute} at once; a hook
     * that asks another service overrides it, so that no thread of the gateway waits for that service.
     */
    default CompletionStage<List<String>> rerouteAsync(RerouteContext context) {
        return CompletableFuture.completedFuture(reroute(context));
    }
}
