package io.trunkgate.config;

/**
 * Whether a limit refuses calls ({@code enforce}) or only counts those it would refuse ({@code shadow}): the
 * {@code mode} key of a limit, a peer, a group, and a carrier's {@code pacing-mode} and {@code max-concurrent-mode}.
 */
public enum LimitMode {
    /** Over the limit, the call is refused (or, for a carrier, held or rerouted). */
    ENFORCE,
    /**
     * The call goes on as if the limit were not there; one it would have refused is counted and marked. The
     * limit's state counts what it would count if it were enforced, so switching it to enforce continues from it.
     */
    SHADOW
}
