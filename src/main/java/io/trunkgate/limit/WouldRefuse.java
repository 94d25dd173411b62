package io.trunkgate.limit;

import io.trunkgate.config.Limit;
import java.util.Optional;

/**
 * A shadow limit, or a shadow max-concurrent cap, that would have refused a call had it been enforced.
 *
 * @param scope the scope the limit or cap belongs to
 * @param limit the limit; empty for the scope's max-concurrent cap
 */
public record WouldRefuse(Scope scope, Optional<Limit> limit) {

    /** How it reads in logs, records and the {@code limit} label of the metric: "peer:acme 10/1000ms", "group:g max-concurrent". */
    public String label() {
        return scope + " " + limit.map(Limit::toString).orElse("max-concurrent");
    }

    @Override
    public String toString() {
        return label();
    }
}
